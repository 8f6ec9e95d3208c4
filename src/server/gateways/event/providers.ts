/**
 * The proof each email provider's feedback webhook carries, checked by that provider's own scheme, for
 * `POST {event}/feedback/{provider}/{integration_key}` (openapi/event.yaml postProviderFeedback):
 * - Postmark: HTTP basic-auth credentials put in the webhook URL, compared with the stored user:password in constant
 *   time (SHA-256 digests, timingSafeEqual); the same body a second time is refused (bodyKey);
 * - Mailgun: `signature.signature` = HMAC-SHA256(signing key, timestamp + token) in hex; a timestamp more than
 *   MAX_SKEW_S away from now, or a token seen before, is refused;
 * - SendGrid: an ECDSA (P-256, SHA-256, DER in base64) signature over timestamp + raw body in
 *   X-Twilio-Email-Event-Webhook-Signature, checked with the verification key by Node's crypto (OpenSSL: 0.19 ms a
 *   request, where SendGrid's own @sendgrid/eventwebhook, pure-JS ECDSA, took 3.8 ms: a cheap way to burn CPU with
 *   forged requests; docs/bench-log.md 2026-11-28); MAX_SKEW_S; a timestamp and body seen before are refused;
 * - Brevo: `Authorization: Bearer <token>`, constant time; the same body a second time is refused (bodyKey);
 * - Resend: Svix's signature (the Standard Webhooks scheme: svix-id, svix-timestamp, svix-signature), checked by
 *   standardwebhooks (which refuses a timestamp more than 5 minutes away); an id seen before is refused.
 * Every failure throws Unauthorized (401) before anything is read or changed.
 */
import { createHash, createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { FastifyRequest } from 'fastify';
import { Unauthorized } from '../../errors.ts';
import type { FeedbackProvider } from '../../../domain/providerFeedback.ts';

/** replayed: the 401 for a delivery whose replay key was claimed before. */
export function replayed(): Unauthorized {
  return new Unauthorized('signature: this request was received before (a replay)');
}

/** How far a signed timestamp may be from now, in seconds (Mailgun's and Svix's advice: 5 minutes). */
export const MAX_SKEW_S = 300;

/** sameSecret: constant-time equality of two strings of any length (their SHA-256 digests are compared). */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

const header = (req: FastifyRequest, name: string): string => {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
};

/** fresh: a Unix timestamp (s) within MAX_SKEW_S of now. */
function fresh(timestamp: string): boolean {
  const t = Number(timestamp);
  return Number.isFinite(t) && Math.abs(Date.now() / 1000 - t) <= MAX_SKEW_S;
}

/**
 * bodyKey: the replay key of a provider that signs nothing (Postmark, Brevo: a shared secret proves the sender, not
 * the request), the SHA-256 of the exact body. Each of their deliveries carries its own event (Postmark's bounce ID
 * and BouncedAt, Brevo's ts_event and message-id), and a provider sends it again only after an answer that was not
 * 2xx (nothing was claimed then), so the same bytes a second time are a copy of a request already applied.
 */
function bodyKey(provider: FeedbackProvider, rawBody: string): string {
  return `${provider}-webhook:${createHash('sha256').update(rawBody).digest('hex')}`;
}

/**
 * sendgridKey: the verification key as a P-256 public key. SendGrid shows it as bare base64 (SPKI DER); PEM is taken
 * too. Throws when it is neither, or not an EC key on P-256.
 */
function sendgridKey(key: string): KeyObject {
  const k = key.trim();
  const object = k.includes('-----BEGIN')
    ? createPublicKey(k)
    : createPublicKey({ key: Buffer.from(k.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
  if (object.asymmetricKeyType !== 'ec' || object.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('not a P-256 key');
  return object;
}

/**
 * checkProviderSecret: why `secret` cannot be the provider's proof (a `secret: …` message), or undefined when it can:
 * Postmark's is user:password, SendGrid's an EC public key (base64 or PEM), Resend's a whsec_ base64 secret.
 */
export function checkProviderSecret(provider: FeedbackProvider, secret: string): string | undefined {
  const s = secret.trim();
  if (provider === 'postmark' && !/^[^:\s]+:\S+$/.test(s))
    return 'secret: Postmark webhooks prove themselves with user:password (the credentials put in the webhook URL)';
  if (provider === 'sendgrid') {
    try {
      sendgridKey(s);
    } catch {
      return 'secret: not a SendGrid verification key (the base64 public key shown beside "Signed Event Webhook")';
    }
  }
  if (provider === 'resend') {
    try {
      new Webhook(s);
    } catch {
      return 'secret: not a Resend signing secret (whsec_ followed by base64)';
    }
  }
  return undefined;
}

/**
 * verifyProviderRequest checks a webhook request's proof against the project's `secret` (see the module's comment);
 * `rawBody` is the request's body exactly as sent. Returns the key that names this delivery (Mailgun's token, the
 * digest of SendGrid's signed timestamp and body, Svix's id, the body's digest for Postmark and Brevo): the caller
 * claims it (claimKey) in the transaction that applies the events and refuses the request as a replay when it was
 * claimed before (replayed()). Throws
 * Unauthorized when the proof is missing, wrong or stale.
 */
export function verifyProviderRequest(provider: FeedbackProvider, req: FastifyRequest, rawBody: string, secret: string): { replayKey: string } {
  const refuse = (why: string): never => {
    throw new Unauthorized(`signature: ${why}`);
  };
  switch (provider) {
    case 'postmark': {
      const m = /^Basic\s+(\S+)$/i.exec(header(req, 'authorization'));
      if (!m) refuse('basic-auth credentials are missing (put user:password in the webhook URL)');
      if (!sameSecret(Buffer.from(m![1], 'base64').toString(), secret)) refuse('the basic-auth credentials are wrong');
      return { replayKey: bodyKey(provider, rawBody) };
    }
    case 'brevo': {
      const m = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization'));
      if (!m) refuse('the bearer token is missing');
      if (!sameSecret(m![1], secret)) refuse('the bearer token is wrong');
      return { replayKey: bodyKey(provider, rawBody) };
    }
    case 'mailgun': {
      let body: { signature?: { timestamp?: unknown; token?: unknown; signature?: unknown } };
      try {
        body = JSON.parse(rawBody);
      } catch {
        return refuse('the body is not JSON');
      }
      const { timestamp, token, signature } = body?.signature ?? {};
      if (typeof timestamp !== 'string' || typeof token !== 'string' || typeof signature !== 'string')
        refuse('signature.timestamp, token or signature is missing');
      const expected = createHmac('sha256', secret).update(`${timestamp}${token}`).digest('hex');
      if (!sameSecret(expected, String(signature).toLowerCase())) refuse('the HMAC does not match the signing key');
      if (!fresh(String(timestamp))) refuse(`the timestamp is more than ${MAX_SKEW_S} s away`);
      return { replayKey: `${provider}-webhook:${String(token)}` };
    }
    case 'sendgrid': {
      const signature = header(req, 'x-twilio-email-event-webhook-signature');
      const timestamp = header(req, 'x-twilio-email-event-webhook-timestamp');
      if (!signature || !timestamp) refuse('X-Twilio-Email-Event-Webhook-Signature or -Timestamp is missing');
      let valid = false;
      try {
        valid = verify('sha256', Buffer.from(`${timestamp}${rawBody}`), sendgridKey(secret), Buffer.from(signature, 'base64'));
      } catch {
        valid = false;
      }
      if (!valid) refuse('the ECDSA signature does not match the verification key');
      if (!fresh(timestamp)) refuse(`the timestamp is more than ${MAX_SKEW_S} s away`);
      // The key is the signed content, not the signature's text: one signature can be written several ways
      // (padding, the other of its two s values) that all verify.
      return { replayKey: `${provider}-webhook:${createHash('sha256').update(`${timestamp}${rawBody}`).digest('hex')}` };
    }
    case 'resend': {
      const id = header(req, 'svix-id') || header(req, 'webhook-id');
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': header(req, 'svix-timestamp') || header(req, 'webhook-timestamp'),
        'webhook-signature': header(req, 'svix-signature') || header(req, 'webhook-signature'),
      };
      try {
        new Webhook(secret).verify(rawBody, headers);
      } catch (err) {
        refuse(`the Svix signature is wrong or stale (${(err as Error).message})`);
      }
      return { replayKey: `${provider}-webhook:${id}` };
    }
  }
}
