/**
 * Amazon SES bounce and complaint notifications delivered by SNS over HTTPS, for
 * `POST {event}/feedback/ses/{integration_key}`. The signature check is sns-payload-validator's: SignatureVersion 1
 * or 2, a SigningCertURL on sns.<region>.amazonaws.com, the certificate fetched over HTTPS and cached.
 */
import Validator from 'sns-payload-validator';
import { BadRequest, HttpError } from '../../errors.ts';
import { fromSesNotification, type Feedback, type SesNotification } from '../../../domain/feedback.ts';

const validator = new Validator();

/**
 * pinSnsCertificate trusts `pem` as the certificate at `url` without fetching it: for a machine that cannot reach
 * Amazon, and for tests that sign with their own key. The URL must still have Amazon SNS's form.
 */
export function pinSnsCertificate(url: string, pem: string): void {
  (validator as unknown as { certCache: { set(k: string, v: string): void } }).certCache.set(url, pem);
}

/** One SNS message (the fields this endpoint reads). */
export interface SnsMessage {
  Type: 'SubscriptionConfirmation' | 'Notification' | 'UnsubscribeConfirmation' | string;
  /** SNS's id of the message; a redelivery carries the same one. */
  MessageId?: string;
  Message?: string;
  SubscribeURL?: string;
  TopicArn?: string;
}

/**
 * parseSnsBody reads the posted body (SNS sends JSON as text/plain) and, when `verify`, checks its signature.
 * Throws BadRequest for a body that is not an SNS message and a 403 HttpError for a missing or wrong signature.
 */
export async function parseSnsBody(body: unknown, verify: boolean): Promise<SnsMessage> {
  let message: unknown = body;
  if (typeof body === 'string') {
    try {
      message = JSON.parse(body);
    } catch {
      throw new BadRequest(['body: not JSON (an SNS message is expected)']);
    }
  }
  if (!message || typeof message !== 'object' || typeof (message as SnsMessage).Type !== 'string') {
    throw new BadRequest(['Type: missing (an SNS message is expected)']);
  }
  if (verify) {
    try {
      await validator.validate(message as never);
    } catch (err) {
      throw new HttpError(403, [`signature: ${(err as Error).message}`]);
    }
  }
  return message as SnsMessage;
}

/** sesFeedback reads the SES notification inside an SNS Notification; throws BadRequest when Message is not one. */
export function sesFeedback(msg: SnsMessage): Feedback[] {
  let inner: SesNotification;
  try {
    inner = JSON.parse(msg.Message ?? '');
  } catch {
    throw new BadRequest(['Message: not JSON (an SES notification is expected)']);
  }
  try {
    return fromSesNotification(inner);
  } catch (err) {
    throw new BadRequest([`Message: ${(err as Error).message}`]);
  }
}

/**
 * confirmSubscription visits a SubscriptionConfirmation's SubscribeURL (that is how SNS subscriptions are confirmed).
 * With verification on, the URL must be Amazon SNS's over HTTPS. Throws BadRequest when it is refused or fails.
 */
export async function confirmSubscription(msg: SnsMessage, verify: boolean): Promise<void> {
  const url = msg.SubscribeURL ?? '';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BadRequest(['SubscribeURL: not a URL']);
  }
  if (verify && !(parsed.protocol === 'https:' && /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/.test(parsed.hostname))) {
    throw new BadRequest(['SubscribeURL: not an Amazon SNS address']);
  }
  const res = await fetch(parsed, { signal: AbortSignal.timeout(10_000) }).catch((err: Error) => {
    throw new BadRequest([`SubscribeURL: ${err.message}`]);
  });
  if (!res.ok) throw new BadRequest([`SubscribeURL: answered ${res.status}`]);
}
