/**
 * /security: how the service protects accounts, data and mail, stated as the code does it and no further: passwords
 * (bcrypt, src/server/core/accounts), API keys (stored as issued, src/server/db/schema.ts projects.api_key), the
 * console's session cookie (src/console/session.ts), operator sessions (SHA-256 of the token, HttpOnly), sign-in
 * limits, signed links, one-use upload URLs, webhook signing (standardwebhooks) and the private-address guard, provider
 * and SNS signature checks, DKIM (2048-bit keys per domain), relay TLS (src/server/mail/smtpPool.ts), security
 * headers (@fastify/helmet) and where stored emails live (STORAGE_URL).
 */
import { Link } from 'react-router-dom';
import { SUPPORT_EMAIL } from '../../domain/errors';
import { pageTitle, usePageMeta } from './pageMeta';
import { PublicLayout } from './PublicLayout';

/** SecurityPage says how the service is secured. */
export function SecurityPage() {
  usePageMeta(
    pageTitle('Security'),
    'How Mailwright protects accounts, data and mail: bcrypt passwords, signed webhooks and links, DKIM on every verified domain, sign-in limits and strict security headers.',
  );
  return (
    <PublicLayout>
      <article className="mw-prose">
        <p className="mw-eyebrow">Trust</p>
        <h1 className="mw-page-title">Security</h1>
        <p className="mw-lead">
          What we do to keep your account, your contacts and your mail safe — and, where it matters, what we do not do, so you can plan around it.
        </p>

        <h2>Signing in</h2>
        <ul>
          <li>Passwords are stored only as bcrypt hashes and must have at least 8 characters with a letter and a digit.</li>
          <li>
            After 10 failed sign-ins from one network address, or for one account, within 15 minutes, further attempts are refused until the window ends, and
            the password is not even checked. The counts are shared by every server process and survive restarts.
          </li>
          <li>
            The console keeps your session, which includes your project’s API key, in a first-party cookie marked <code>SameSite=Strict</code> for 24 hours
            while you use it. Log out on shared computers.
          </li>
          <li>
            Operators sign in to a separate back-office with their own <code>HttpOnly</code> cookie; only a hash of its token is stored, and every change they
            make must come from the back-office’s own pages and is written to an audit log.
          </li>
        </ul>

        <h2>API keys and secrets</h2>
        <ul>
          <li>
            Each project’s API key is stored as issued, so the console can show it to your admins. Treat it, and any copy or backup of the database, as a
            secret.
          </li>
          <li>
            Webhook signing secrets are shown once, when made or rotated. Showing one again is possible but leaves a notice every admin of the project can see.
          </li>
          <li>
            Links inside your emails (tracking, unsubscribe) are signed with a per-project secret that is never shown to anyone, so rotating an API key never
            breaks links already sent.
          </li>
        </ul>

        <h2>Your data</h2>
        <ul>
          <li>
            Account data, contacts and events live in PostgreSQL. Exact copies of sent emails, uploaded contact files and template images live in the storage
            the service is configured with: a folder on the server or an S3-compatible bucket.
          </li>
          <li>
            Mailwright does not encrypt these itself: encryption at rest comes from the disk or the bucket (for example S3 server-side encryption), so run it on
            storage that provides it.
          </li>
          <li>Every project sees only its own data; another project’s id is answered exactly like an id nobody has.</li>
          <li>
            Upload links are signed, valid for 15 minutes and good for one upload. Images are accepted only when their bytes really are PNG, JPEG, GIF or WebP,
            never SVG.
          </li>
        </ul>

        <h2>Webhooks and incoming feedback</h2>
        <ul>
          <li>
            Every webhook is signed to the <a href="https://www.standardwebhooks.com">Standard Webhooks</a> specification, with a timestamp, so your receiver
            can reject forged and replayed messages.
          </li>
          <li>
            Webhook addresses must be http or https without credentials, and may not point at private, loopback or link-local networks — checked when saved and
            again at connection time.
          </li>
          <li>
            Bounce and complaint notices from Postmark, Mailgun, SendGrid, Brevo, Resend and Amazon SES are accepted only with a valid signature or secret from
            that provider; a stale or replayed one is refused.
          </li>
        </ul>

        <h2>Mail</h2>
        <ul>
          <li>
            Each sending domain gets its own 2048-bit DKIM key, made on the server. Once its DNS record is verified, every email from it is signed, covering the
            sender, subject, date, message id and, on marketing mail, both one-click unsubscribe headers.
          </li>
          <li>
            Mail to relays goes over TLS: implicit TLS for <code>smtps://</code> relays, otherwise STARTTLS whenever the relay offers it, with the relay’s
            certificate checked. Both can be relaxed per relay only by whoever configures the service (for a relay on the same machine, say).
          </li>
          <li>Sender addresses must be verified by their owner before any mail is sent from them.</li>
        </ul>

        <h2>The web application</h2>
        <ul>
          <li>
            Every page and answer carries a Content-Security-Policy (scripts only from this site, and from the template designer and captcha services when they
            are used), <code>X-Frame-Options: SAMEORIGIN</code>, <code>X-Content-Type-Options: nosniff</code> and <code>Referrer-Policy: no-referrer</code>, and
            HSTS on https.
          </li>
          <li>
            Bad input is refused with a message naming the field. Segment filters are compiled to SQL with bind parameters only, so no text you type becomes
            SQL.
          </li>
        </ul>

        <h2>Reporting a problem</h2>
        <p>
          If you find a security issue, write to <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a> with “Security” in the subject. Please give us a chance
          to fix it before telling others; we will reply and keep you informed. How we handle personal data is on the <Link to="/privacy">privacy page</Link>.
        </p>
      </article>
    </PublicLayout>
  );
}
