/**
 * The DMARC policy path (RFC 7489 §6.3 p=, §7.2 aggregate reports): publish p=none with rua= and read the reports,
 * authenticate every source that sends as the domain, then ask receivers to quarantine and at last to reject mail that
 * fails. Pure: the figures come from the server's stored reports (src/server/core/domains/dmarc.ts).
 */
import { formatRate } from './reports.ts';

/** A DMARC policy (the p= tag). */
export type DmarcPolicy = 'none' | 'quarantine' | 'reject';

/** The share of messages that must pass DMARC before the next, stricter policy is advised (98 %). */
export const DMARC_STRICTER_AT = 0.98;

/** Days with reports needed before a stricter policy is advised: a week of a receiver's daily reports. */
export const DMARC_DAYS_BEFORE_STRICTER = 7;

/**
 * dmarcNextStep says which policy to move to now and why, in words for the console: `published` is the p= the latest
 * report found (null before any report), `passRate` the share (0-1) of reported messages that passed DMARC (null with
 * none), `daysWithReports` the days with reports in the window, `rua` the address to publish (mailto:…). A stricter
 * policy is advised only from DMARC_STRICTER_AT with reports on DMARC_DAYS_BEFORE_STRICTER days or more.
 */
export function dmarcNextStep(o: { published: DmarcPolicy | null; passRate: number | null; daysWithReports: number; rua: string }): {
  next: 'quarantine' | 'reject' | null;
  advice: string;
} {
  const percent = formatRate(o.passRate);
  if (o.published === null || o.passRate === null) {
    return {
      next: null,
      advice: `Publish the DMARC record with p=none and rua=${o.rua}: receivers then send a daily report of who sends mail as this domain. Move to p=quarantine, then p=reject, once nearly all of it passes.`,
    };
  }
  if (o.published === 'reject') return { next: null, advice: `At p=reject: receivers refuse mail that fails DMARC. ${percent} of reported mail passed.` };
  const ready = o.passRate >= DMARC_STRICTER_AT && o.daysWithReports >= DMARC_DAYS_BEFORE_STRICTER;
  const next = o.published === 'none' ? 'quarantine' : 'reject';
  if (ready) return { next, advice: `${percent} of reported mail passed DMARC over ${o.daysWithReports} days: move to p=${next}.` };
  return {
    next: null,
    advice:
      o.passRate >= DMARC_STRICTER_AT
        ? `${percent} of reported mail passed DMARC; wait for a week of reports before moving to p=${next}.`
        : `Stay at p=${o.published}: ${percent} of reported mail passed DMARC. Sign the failing sources below with DKIM (or add them to SPF), or stop them, then move to p=${next} once ${DMARC_STRICTER_AT * 100}% passes.`,
  };
}
