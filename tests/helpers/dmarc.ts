/**
 * DMARC aggregate reports for tests: the two samples of tests/fixtures/dmarc/ (Google's, zipped; Microsoft's
 * Outlook.com one, gzipped) moved to a chosen UTC day, wrapped in the emails those reporters send (RFC 7489
 * §7.2.1.1: the report as an attachment named `<receiver>!<domain>!<begin>!<end>.<ext>`), and sent over SMTP to the
 * inbound receiver.
 */
import { gzipSync } from 'node:zlib';
import nodemailer from 'nodemailer';
import { readFixture } from './fixtures.ts';
import { zip } from './zip.ts';

/** The samples' fixture files, their reporters and how each reporter packs the XML. */
export const DMARC_SAMPLES = {
  google: {
    file: 'dmarc/google.com!shop.example!1764201600!1764287999.xml',
    receiver: 'google.com',
    from: 'noreply-dmarc-support@google.com',
    packing: 'zip',
  },
  microsoft: {
    file: 'dmarc/outlook.com!shop.example!1764115200!1764201600.xml',
    receiver: 'outlook.com',
    from: 'dmarcreport@microsoft.com',
    packing: 'gzip',
  },
} as const;

/** A report ready to send: its XML, its period (epoch seconds) and id. */
export interface SampleReport {
  xml: string;
  begin: number;
  end: number;
  reportId: string;
}

/**
 * sampleReport reads a sample and moves its period to start on `day` (YYYY-MM-DD, UTC), keeping its length, so that
 * it falls in a window counted back from today; `domain` replaces shop.example and `reportId` the sample's id when given.
 */
export function sampleReport(which: keyof typeof DMARC_SAMPLES, day: string, opts: { domain?: string; reportId?: string } = {}): SampleReport {
  let xml = readFixture(DMARC_SAMPLES[which].file);
  const oldBegin = Number(/<begin>(\d+)<\/begin>/.exec(xml)![1]);
  const oldEnd = Number(/<end>(\d+)<\/end>/.exec(xml)![1]);
  const begin = Date.parse(`${day}T00:00:00Z`) / 1000;
  const end = begin + (oldEnd - oldBegin);
  xml = xml.replace(/<begin>\d+<\/begin>/, `<begin>${begin}</begin>`).replace(/<end>\d+<\/end>/, `<end>${end}</end>`);
  if (opts.domain) xml = xml.replaceAll('shop.example', opts.domain);
  if (opts.reportId) xml = xml.replace(/<report_id>[^<]*<\/report_id>/, `<report_id>${opts.reportId}</report_id>`);
  return { xml, begin, end, reportId: /<report_id>([^<]*)<\/report_id>/.exec(xml)![1] };
}

/** A day `n` days before today, UTC, as YYYY-MM-DD. */
export const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/**
 * reportEmail writes the email a reporter sends: multipart/mixed with a short text and the attachment `content` named
 * `filename` of type `contentType`, From the reporter's address, To `to`.
 */
export function reportEmail(o: { from: string; to: string; subject: string; filename: string; contentType: string; content: Buffer }): string {
  const base64 = o.content.toString('base64').replace(/.{1,76}/g, '$&\r\n');
  return [
    `From: ${o.from}`,
    `To: ${o.to}`,
    `Subject: ${o.subject}`,
    `Message-ID: <${Date.now()}.${Math.random().toString(36).slice(2)}@reporter.example>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="R0"',
    '',
    '--R0',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is an aggregate report from the DMARC receiver.',
    '',
    '--R0',
    `Content-Type: ${o.contentType}; name="${o.filename}"`,
    `Content-Disposition: attachment; filename="${o.filename}"`,
    'Content-Transfer-Encoding: base64',
    '',
    base64,
    '--R0--',
    '',
  ].join('\r\n');
}

/**
 * sampleEmail packs a sample report as its reporter does — Google: a .zip (application/zip); Microsoft: a .xml.gz
 * (application/gzip) — and wraps it in that reporter's email to `to`.
 */
export function sampleEmail(which: keyof typeof DMARC_SAMPLES, report: SampleReport, to: string): string {
  const s = DMARC_SAMPLES[which];
  const domain = /<policy_published>\s*<domain>([^<]+)<\/domain>/.exec(report.xml)![1];
  const base = `${s.receiver}!${domain}!${report.begin}!${report.end}`;
  const packed =
    s.packing === 'zip'
      ? { filename: `${base}.zip`, contentType: 'application/zip', content: zip([{ name: `${base}.xml`, data: Buffer.from(report.xml) }]) }
      : { filename: `${base}.xml.gz`, contentType: 'application/gzip', content: gzipSync(report.xml) };
  return reportEmail({
    from: s.from,
    to,
    subject: `Report domain: ${domain} Submitter: ${s.receiver} Report-ID: <${report.reportId}>`,
    ...packed,
  });
}

/** sendToReceiver hands `raw` to the SMTP server on 127.0.0.1:`port` for `to`, from `from`; resolves with its reply. */
export async function sendToReceiver(port: number, to: string, raw: string, from = 'dmarc-reports@reporter.example'): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    return (await transport.sendMail({ envelope: { from, to: [to] }, raw })).response;
  } finally {
    transport.close();
  }
}
