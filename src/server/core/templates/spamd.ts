/**
 * A small client of SpamAssassin's daemon, spamd, speaking the spamc protocol over TCP (SpamAssassin's
 * `spamd/PROTOCOL`: https://svn.apache.org/repos/asf/spamassassin/trunk/spamd/PROTOCOL). The npm clients of this
 * protocol are unmaintained, and the one command needed is short: `REPORT SPAMC/1.5` with a `Content-length` header
 * and the message; spamd answers `SPAMD/1.1 0 EX_OK`, a `Spam: True ; 6.1 / 5.0` header (score / threshold) and the
 * report, whose "Content analysis details" table lists each rule that hit with its points and description.
 */
import net from 'node:net';

/** One SpamAssassin rule that hit: its name, the points it added (may be negative) and its description. */
export interface SpamRule {
  name: string;
  score: number;
  description: string;
}

/** spamd's verdict on one message: its score, the threshold at which it is spam, and the rules that hit. */
export interface SpamReport {
  score: number;
  threshold: number;
  /** Every rule of the report, in the report's order. */
  rules: SpamRule[];
}

/**
 * parseSpamdReport reads spamd's answer to REPORT (the whole response: status line, headers, blank line, report).
 * Throws an Error when the status is not 0 (EX_OK) or the `Spam:` header is missing. A rule's description may wrap
 * onto indented continuation lines; they are joined with one space.
 */
export function parseSpamdReport(response: string): SpamReport {
  const split = response.search(/\r?\n\r?\n/);
  const head = split >= 0 ? response.slice(0, split) : response;
  const body = split >= 0 ? response.slice(split).replace(/^\r?\n\r?\n/, '') : '';
  const [status, ...headers] = head.split(/\r?\n/);
  const code = /^SPAMD\/\d+\.\d+\s+(\d+)\s*(.*)$/.exec(status ?? '');
  if (!code) throw new Error(`spamd answered "${(status ?? '').slice(0, 100)}"`);
  if (code[1] !== '0') throw new Error(`spamd answered ${code[1]} ${code[2]}`);
  const spam = headers.map((h) => /^Spam:\s*\w+\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/i.exec(h)).find(Boolean);
  if (!spam) throw new Error('spamd answered without a Spam: header');
  const rules: SpamRule[] = [];
  const lines = body.split(/\r?\n/);
  const table = lines.findIndex((l) => /^-{3,}\s+-{3,}/.test(l));
  if (table >= 0) {
    for (const line of lines.slice(table + 1)) {
      const rule = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$/.exec(line);
      if (rule) rules.push({ score: Number(rule[1]), name: rule[2], description: rule[3].trim() });
      else if (/^\s{5,}\S/.test(line) && rules.length) rules[rules.length - 1].description += ` ${line.trim()}`;
      else if (!line.trim()) continue;
      else break;
    }
  }
  return { score: Number(spam[1]), threshold: Number(spam[2]), rules };
}

/**
 * spamdReport sends one RFC 5322 message (`raw`, the bytes as they would be delivered) to spamd at host:port with
 * `REPORT SPAMC/1.5` and resolves its verdict. The whole exchange must end within `timeoutMs` (default 20,000 ms).
 * Rejects with an Error when spamd cannot be reached, times out or answers anything but EX_OK.
 */
export function spamdReport(to: { host: string; port: number }, raw: Buffer, timeoutMs = 20_000): Promise<SpamReport> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = net.connect({ host: to.host, port: to.port });
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      if (err) return reject(err);
      try {
        resolve(parseSpamdReport(Buffer.concat(chunks).toString('utf8')));
      } catch (e) {
        reject(e as Error);
      }
    };
    const deadline = setTimeout(() => finish(new Error(`spamd did not answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => {
      socket.write(`REPORT SPAMC/1.5\r\nContent-length: ${raw.length}\r\n\r\n`);
      // spamd reads Content-length bytes; half-closing tells it nothing more comes.
      socket.end(raw);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish());
    socket.on('error', (err) => finish(err));
  });
}
