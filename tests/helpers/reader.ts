/**
 * A person reading an email: tests that load a delivered email's pixel or follow its links as the
 * recipient — not as a scanner — send a mail client's user agent and wait as long after delivery as a person takes,
 * so src/domain/engagement.ts counts the open and the click as a person's.
 */
import { CLICK_ON_DELIVERY_MS, OPEN_ON_DELIVERY_MS } from '../../src/domain/engagement.ts';

/** Apple Mail on macOS: a mail client's user agent that no rule marks machine. */
export const MAIL_CLIENT_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';

/**
 * readerDelay waits until the email delivered at `deliveredAt` (ms since the epoch, e.g. SmtpSink's receivedAt) may be
 * opened ('open') or clicked ('click') by a person: past OPEN_ON_DELIVERY_MS or CLICK_ON_DELIVERY_MS, plus 500 ms.
 */
export async function readerDelay(deliveredAt: number, what: 'open' | 'click'): Promise<void> {
  const wait = deliveredAt + (what === 'open' ? OPEN_ON_DELIVERY_MS : CLICK_ON_DELIVERY_MS) + 500 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
