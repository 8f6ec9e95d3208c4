/**
 * The inbound SMTP receiver of returned mail: receivers of our emails send their bounces (RFC 3464
 * DSNs and the free-text ones), complaint reports (RFC 5965 ARF) and auto-replies to each email's return path at its
 * domain's bounce subdomain, whose MX points here (INBOUND_MX_HOST; in production port 25 is forwarded to
 * INBOUND_SMTP_PORT). Built on smtp-server; what a message means and what it changes is core/feedback/inbound.ts.
 *
 * It is never an open relay: a recipient outside the bounce subdomains of the sending domains whose MX verifies is
 * refused at RCPT with `550 5.7.1`. Messages over INBOUND_MAX_BYTES are refused with `552 5.3.4` (announced in EHLO as
 * SIZE), a client address sending more than INBOUND_RATE_PER_MINUTE messages a minute gets `421 4.7.0` (it retries
 * later), STARTTLS is offered when INBOUND_TLS_CERT and INBOUND_TLS_KEY are set, and there is no AUTH. Garbage is
 * accepted and ignored (a 250 tells its sender to stop retrying) with a log line and the metric
 * mailwright_inbound_messages_total{result}; only a database failure answers `451 4.3.0`, so that the sender retries.
 *
 * Mail to dmarc@ at a bounce subdomain is a DMARC aggregate report (RFC 7489 §7.2), stored by
 * core/domains/dmarc.ts applyDmarcReport; a refused report is answered 250 and logged, as garbage is.
 */
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { capHeapGrowth } from '../../heap.ts';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { applyReturnedEmails, inboundSettings, type InboundOutcome, type InboundSettings, type ReturnedEmail } from '../../core/feedback/inbound.ts';
import { parseFeedbackReport } from '../../core/feedback/report.ts';
import type { Database } from '../../db/client.ts';
import { isBounceDomain } from '../../core/domains/index.ts';
import { applyDmarcReport, isDmarcAddress } from '../../core/domains/dmarc.ts';
import { inboundMetrics, type InboundResult } from '../../metrics.ts';
import { ReputationWatch } from '../../core/sending/reputation.ts';
import { readSmtpData, smtpError } from '../smtpServer.ts';

/** A running receiver: the port it listens on, and how to stop it (waits for the sessions in progress, at most 5 s). */
export interface InboundReceiver {
  port: number;
  close(): Promise<void>;
}

/** Recipients per returned message, and SMTP sessions at once. */
const MAX_RECIPIENTS = 5;
const MAX_CLIENTS = 100;

/** The most returned emails applied in one transaction, and transactions under way at once. */
const MAX_GROUP = 50;
const GROUPS_AT_ONCE = 2;

/**
 * GroupCommit applies the returned emails that arrive while a transaction is under way together in the next one (at
 * most MAX_GROUP): one commit, and one flush of the write-ahead log, for many sessions' messages
 * (bench:feedback). When a group fails, each of its emails is tried alone, so one email the database refuses does
 * not hold back the others.
 */
class GroupCommit {
  private pending: Array<{ email: ReturnedEmail; resolve: (o: InboundOutcome) => void; reject: (err: Error) => void }> = [];
  private running = 0;

  constructor(
    private readonly db: Pick<Database, 'transaction'>,
    private readonly settings: InboundSettings,
  ) {}

  /** apply resolves with the email's outcome once its transaction committed; rejects when the database failed. */
  apply(email: ReturnedEmail): Promise<InboundOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ email, resolve, reject });
      if (this.running < GROUPS_AT_ONCE) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running++;
    while (this.pending.length) {
      const group = this.pending.splice(0, MAX_GROUP);
      try {
        const outcomes = await applyReturnedEmails(
          this.db,
          group.map((g) => g.email),
          'smtp',
          this.settings,
        );
        group.forEach((g, i) => g.resolve(outcomes[i]));
      } catch (err) {
        if (group.length > 1) console.warn(`inbound: a group of ${group.length} returned emails failed (${(err as Error).message}); applying each alone`);
        if (group.length === 1) group[0].reject(err as Error);
        else for (const g of group) await applyReturnedEmails(this.db, [g.email], 'smtp', this.settings).then(([o]) => g.resolve(o), g.reject);
      }
    }
    this.running--;
  }
}

/**
 * startInboundReceiver listens on INBOUND_SMTP_PORT (0: a free port, for tests) when it is set, else returns
 * undefined. Resolves once listening; rejects when the port cannot be bound.
 */
export async function startInboundReceiver(ctx: AppContext): Promise<InboundReceiver | undefined> {
  const settings = ctx.config.inbound;
  if (settings.port === undefined) return undefined;
  // Parsing returned mail makes short-lived garbage at a steady rate, as sending does (server/heap.ts).
  capHeapGrowth();
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const perClient = new RateLimiterMemory({ points: settings.ratePerMinute, duration: 60 });
  const count = (result: InboundResult) => inboundMetrics.messages.inc({ source: 'smtp', result });
  // The circuit-breaker looks at a project once a second while its feedback arrives, not once per returned message
  // (each look counts the window's bounces: per message that grows with the square of a burst; bench:feedback).
  // Whether a domain is a verified bounce subdomain, remembered for a minute (10 s when not: a domain just verified is
  // soon taken), so that each RCPT does not ask the database.
  const known = new Map<string, { known: boolean; until: number }>();
  const knownDomain = async (domain: string): Promise<boolean> => {
    const hit = known.get(domain);
    if (hit && hit.until > Date.now()) return hit.known;
    const answer = await isBounceDomain(query, domain);
    if (known.size > 10_000) known.clear();
    known.set(domain, { known: answer, until: Date.now() + (answer ? 60_000 : 10_000) });
    return answer;
  };
  const group = new GroupCommit(ctx.database, inboundSettings(ctx.config, ctx.blocks, false));
  const watch = new ReputationWatch(query, ctx.config.reputation, (projectId, reason) => console.warn(`inbound: project ${projectId} paused: ${reason}`));

  const server = new SMTPServer({
    name: settings.mxHost,
    banner: 'Mailwright feedback receiver',
    logger: false,
    size: settings.maxBytes,
    maxClients: MAX_CLIENTS,
    authOptional: true,
    disabledCommands: settings.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(settings.tls ? { key: settings.tls.key, cert: settings.tls.cert } : {}),
    // The returned mail's envelope sender is empty (<>) for bounces: never refused.
    onMailFrom(_address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      perClient.consume(session.remoteAddress || 'unknown').then(
        () => callback(),
        () => {
          count('rate');
          callback(smtpError(421, '4.7.0 Too many messages from your address; try again later'));
        },
      );
    },
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      // A returned email goes to one return path; a few are allowed (an MTA may group them), never a mailing.
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError(452, '4.5.3 Too many recipients'));
      const domain = address.address.split('@').pop()?.toLowerCase() ?? '';
      knownDomain(domain).then(
        (known) => {
          if (known) return callback();
          count('relay');
          callback(smtpError(550, `5.7.1 <${address.address}>: relaying denied; this server takes mail only for its bounce domains`));
        },
        (err: Error) => {
          console.error('inbound: checking a recipient failed:', err.message);
          callback(smtpError(451, '4.3.0 Temporary failure; try again later'));
        },
      );
    },
    onData(stream, session, callback) {
      // Nothing is kept past INBOUND_MAX_BYTES: smtp-server goes on reading an oversized message to its end.
      void readSmtpData(stream, settings.maxBytes).then((data) => {
        if (data === 'too_big') {
          count('too_big');
          return callback(smtpError(552, `5.3.4 Message too big: at most ${settings.maxBytes} bytes`));
        }
        const rcpts = session.envelope.rcptTo.map((r) => r.address);
        if (rcpts.some(isDmarcAddress)) {
          applyDmarcReport(ctx.database, data, rcpts).then(
            (outcome) => {
              count(outcome.outcome === 'stored' ? 'dmarc_stored' : outcome.outcome === 'duplicate' ? 'duplicate' : 'dmarc_refused');
              if (outcome.outcome === 'refused') {
                console.warn(`inbound: refused a DMARC report from ${session.remoteAddress} to ${rcpts.join(', ')}: ${outcome.reason}: ${outcome.detail}`);
              }
              callback(null, 'Report received');
            },
            (err: Error) => {
              count('error');
              console.error('inbound: storing a DMARC report failed:', err.message);
              callback(smtpError(451, '4.3.0 Temporary failure; try again later'));
            },
          );
          return;
        }
        parseFeedbackReport(data, rcpts)
          .then((report) => group.apply({ report, envelopeTo: rcpts }))
          .then(
            (outcome) => {
              if (outcome.outcome === 'applied' && outcome.projectId) watch.sent(outcome.projectId);
              count(outcome.outcome === 'applied' ? ((outcome.class ?? 'undetermined') as InboundResult) : (outcome.reason ?? 'unreadable'));
              if (outcome.outcome === 'ignored') {
                console.warn(`inbound: ignored a returned ${outcome.kind} message from ${session.remoteAddress} to ${rcpts.join(', ')}: ${outcome.reason}`);
              }
              callback(null, 'Feedback received');
            },
            (err: Error) => {
              count('error');
              console.error('inbound: applying a returned message failed:', err.message);
              callback(smtpError(451, '4.3.0 Temporary failure; try again later'));
            },
          );
      });
    },
  });
  server.on('error', (err) => console.error('inbound: SMTP session error:', err.message));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: async () => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      await watch.stop();
    },
  };
}
