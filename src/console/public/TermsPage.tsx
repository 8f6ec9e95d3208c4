/**
 * /terms: the terms of the service in plain words: the sandbox and activation, what may be sent, what the service does
 * when bounces or complaints climb (src/server/core/sending/reputation.ts, the operators' suspension), how sends are
 * priced (src/domain/pricing.ts) and what we do and do not promise.
 */
import { Link } from 'react-router-dom';
import { SUPPORT_EMAIL } from '../../domain/errors';
import { FREE_EMAILS_PER_MONTH } from '../../domain/pricing';
import { pageTitle, usePageMeta } from './pageMeta';
import { count } from './pricingCards';
import { PublicLayout } from './PublicLayout';

/** TermsPage is the terms of service. */
export function TermsPage() {
  usePageMeta(
    pageTitle('Terms'),
    'The terms of using Mailwright in plain words: sending only to people who asked for your email, the sandbox and activation, pricing by the send, and what we promise.',
  );
  return (
    <PublicLayout>
      <article className="mw-prose">
        <p className="mw-eyebrow">Legal</p>
        <h1 className="mw-page-title">Terms of service</h1>
        <p className="mw-updated">Last updated 29 November 2026</p>
        <p className="mw-lead">
          These terms cover your use of Mailwright, the hosted service and its console and API. They are written to be read; if anything is unclear, ask us
          before you rely on it.
        </p>

        <h2>Your account</h2>
        <ul>
          <li>You need to be able to agree to these terms for your business. The person who signs up becomes the first admin of its project.</li>
          <li>Keep your password and API keys secret. Anything done with them counts as done by you. Tell us at once if you think one has leaked.</li>
          <li>
            A new account starts in the sandbox, where it can send only to our mailbox simulator and to its own sender addresses. We activate it for real
            recipients once you have told us what you send and to whom.
          </li>
        </ul>

        <h2>What you may send</h2>
        <ul>
          <li>Email only to people who asked to hear from you, or who expect it because of a relationship with you (a receipt, a password reset).</li>
          <li>No bought, rented or scraped lists; no mail that hides who sent it; nothing illegal, deceptive or harmful.</li>
          <li>
            Every marketing email must carry a working unsubscribe link. Mailwright adds a one-click unsubscribe header for you and honours every request.
          </li>
        </ul>

        <h2>When mail starts to hurt</h2>
        <p>
          High bounce or complaint rates harm every sender on a relay. When a project’s rates pass the service’s limits, its marketing mail is paused
          automatically (blasts and workflow emails; test emails and single sends through the API keep going) until an admin resumes it. Addresses that bounce
          hard or complain are suppressed. For serious or repeated abuse our operators can suspend all sending from a project and will tell you why in your
          console.
        </p>

        <h2>Prices and payment</h2>
        <p>
          You pay for the emails you send, as shown on the <Link to="/pricing">pricing page</Link>: the first {count(FREE_EMAILS_PER_MONTH)} each month are
          free, and each month is billed at the cheapest of our rates for its total. Contacts, seats and logo removal cost nothing. If we change prices, we tell
          you at least 30 days before the new prices apply.
        </p>

        <h2>Your content</h2>
        <p>
          Your contacts, templates and emails remain yours. You give us permission to store, process and send them only to run the service for you. We keep an
          exact copy of each email you send so you can see what went out.
        </p>

        <h2>What we promise, and what we do not</h2>
        <ul>
          <li>
            We build the service to send each email once, keep its copy and report honestly on what happened. Our <Link to="/status">status page</Link> shows
            whether the service is up.
          </li>
          <li>
            We cannot promise that every message reaches an inbox: receiving servers decide that. We do not offer a written uptime guarantee unless we have
            signed one with you.
          </li>
          <li>To the extent the law allows, our liability for any claim is limited to what you paid us in the twelve months before it.</li>
        </ul>

        <h2>Ending</h2>
        <p>
          You can stop using the service at any time; ask us to close your account and remove its data. We may end or suspend an account that breaks these
          terms, and will tell you why.
        </p>

        <h2>Changes and questions</h2>
        <p>
          If we change these terms in a way that matters, we tell account admins by email or in the console before the change applies. Questions: write to{' '}
          <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a> or use the <Link to="/contact-us">contact form</Link>.
        </p>
      </article>
    </PublicLayout>
  );
}
