/**
 * The public home page (spec part 1 §2 "/" when logged out): a hero whose main action is Start free, with a picture of
 * the product; what sets the product apart, each with how we know it holds (docs/architecture.md, README); a tour of
 * screens; the API; prices worked out from src/domain/pricing.ts; and a closing call to action. Plain elements styled by
 * site.css, so / loads no component library. The pictures are screenshots of the built product that `npm run screens`
 * writes into public/screens/.
 */
import { useEffect, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { FREE_EMAILS_PER_MONTH } from '../../domain/pricing';
import { pageTitle, usePageMeta } from './pageMeta';
import { count, lowestRateCents, planCards } from './pricingCards';
import { PublicLayout } from './PublicLayout';
import { StartActions } from './StartActions';

/** The site's product pictures (public/screens/{name}-{1200|640}.webp, 16:10), with what each shows. */
export const PRODUCT_PICTURES = {
  insights:
    'The Insights dashboard: contacts, campaigns and this month’s sends at a glance, then charts of sends, opens and clicks over 30 days and 24 hours, with machine opens left out',
  'wizard-review':
    'The send wizard’s review: recipients targeted and left out by reason, emails this month, free emails left, the estimated cost and sending time, then the email as it will read',
  'template-editor': 'The template editor: a newsletter starter’s HTML beside its live preview',
  'workflow-editor': 'The workflow editor: a welcome journey of an event trigger, a welcome email, a two-day delay and a newsletter on a canvas',
} as const;

type PictureName = keyof typeof PRODUCT_PICTURES;

/** Picture is one product picture, 640 or 1200 px wide as the screen needs; below the fold it loads when scrolled near. */
function Picture({ name, hero = false }: { name: PictureName; hero?: boolean }) {
  return (
    <figure className="mw-shot">
      <img
        src={`/screens/${name}-1200.webp`}
        srcSet={`/screens/${name}-640.webp 640w, /screens/${name}-1200.webp 1200w`}
        sizes={hero ? '(min-width: 1000px) 640px, calc(100vw - 48px)' : '(min-width: 1000px) 600px, calc(100vw - 48px)'}
        width={1200}
        height={750}
        alt={PRODUCT_PICTURES[name]}
        loading={hero ? 'eager' : 'lazy'}
        fetchPriority={hero ? 'high' : 'auto'}
        decoding="async"
      />
    </figure>
  );
}

/** A 24-unit line icon; `d` is its path. */
function Icon({ d }: { d: string }) {
  return (
    <span className="mw-icon" aria-hidden="true">
      <svg width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round">
        <path d={d} />
      </svg>
    </span>
  );
}

/** What sets the product apart, and how we know each holds (the proof names the test or the rule behind it). */
const DIFFERENCES: Array<{ icon: string; title: string; text: ReactNode; proof: string }> = [
  {
    icon: 'M7 3h7l5 5v13H7z M14 3v5h5 M10 13h6 M10 17h6',
    title: 'An exact copy of every email',
    text: 'Each message is stored as it left, headers and DKIM signature included, before it goes to the relay. “What did the customer actually get?” is answered from their history in seconds.',
    proof: 'If storage is unavailable, the email waits instead of going out without its copy.',
  },
  {
    icon: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z M4 21c0-4 3.6-6 8-6s8 2 8 6',
    title: 'Numbers that count people, not machines',
    text: 'Apple Mail Privacy Protection’s prefetches, image proxies and link scanners are recorded but left out of open and click rates, segments and workflow triggers. One switch shows them again.',
    proof: 'Machine opens and bot clicks are marked with the reason: Apple’s published ranges, a hidden honeypot link, several links in one second.',
  },
  {
    icon: 'M4 17a8 8 0 1 1 16 0 M12 17l4-5 M12 17h.01',
    title: 'A governor for every relay',
    text: 'Give each SMTP relay a rate, a connection limit and a daily quota; they hold across every sender process. A throttling answer slows the pace, a relay that refuses hands its mail to the next, and new sending domains warm up day by day.',
    proof: 'Tests hold a relay to its rate across processes; a benchmark feeds one from two servers and counts the seconds over its limit.',
  },
  {
    icon: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z M8.5 12l2.5 2.5 4.5-5',
    title: 'Exactly-once sending that survives a crash',
    text: 'Each recipient’s email is claimed under a lease and marked sent together with its event. A server that dies mid-blast hands its unfinished emails to the next one; nothing is skipped or sent twice.',
    proof:
      'A test kills the server while the relay holds unacknowledged messages and checks every recipient got exactly one, on the embedded database and on PostgreSQL. A crash in the milliseconds between the relay’s “accepted” and the mark resends with the same Message-ID.',
  },
  {
    icon: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1 M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
    title: 'Signed, retried webhooks',
    text: 'Every event your endpoint asks for arrives signed to the Standard Webhooks specification, in order per contact, retried for three days on a published schedule, with the same webhook-id on every attempt.',
    proof: 'Messages are written in the same transaction as the event they report, so none is lost; a test kills a worker mid-delivery.',
  },
  {
    icon: 'M4 5h16v14H4z M4 6l8 6 8-6 M9 15.5l2 2 4-4',
    title: 'Double opt-in and topics',
    text: 'Hosted subscribe forms record consent and send a confirmation that tracks nothing; only pressing its button confirms, so mail scanners confirm nobody. Topics let readers leave “Weekly digest” and keep “Product news”.',
    proof: 'Marketing mail skips pending contacts and those who left its topic, checked again at the moment of sending.',
  },
];

/** The rest of what every account gets. */
const ALSO = [
  'Scheduled blasts, A/B tests, drips and event-triggered workflows',
  'Send at 9 am in each receiver’s own time zone',
  'Segments from filters on contact data and activity',
  'Imports of Mailchimp, Brevo and HubSpot exports, columns matched for you',
  'DKIM signing and one-click unsubscribe (RFC 8058)',
  'Bounces and complaints from Postmark, Mailgun, SendGrid, Brevo, Resend or SES',
  'A circuit-breaker that pauses marketing mail when bounces or complaints climb',
  'Runs on one machine, or scales out on PostgreSQL and S3 storage',
];

const TOUR: Array<{ picture: PictureName; title: string; text: string }> = [
  {
    picture: 'wizard-review',
    title: 'Know what will happen before you press Launch',
    text: 'The send wizard’s review lists who gets the email, who is left out and why, what the send adds to this month’s bill and how long it will take, and shows the email with a sample contact at desktop and phone width.',
  },
  {
    picture: 'template-editor',
    title: 'Start from a template that already works',
    text: 'Five starters — welcome, newsletter, announcement, receipt and password reset — or your own HTML with a live preview, in a drag-and-drop designer. The built-in designer needs no outside service.',
  },
  {
    picture: 'workflow-editor',
    title: 'Journeys that run each step once',
    text: 'Trigger on an event from your product, wait, filter, send, hand off to another workflow. Every contact’s path is kept, and a worker crash never repeats or skips a step.',
  },
];

const EVENTS_EXAMPLE = `curl -X POST "$MAILWRIGHT_URL/api/event/events" \\
  -H "x-api-key: $MAILWRIGHT_KEY" \\
  -H "Idempotency-Key: order-1042" \\
  -H "content-type: application/json" \\
  -d '{"events":[{"name":"order_placed","email":"ada@example.com","json":{"order":"1042"}}]}'`;

const WEBHOOK_EXAMPLE = `import { Webhook } from 'standardwebhooks';

// Throws when the signature or the timestamp is wrong.
const event = new Webhook(secret).verify(rawBody, headers);`;

/** HomePage is the logged-out landing page. */
export function HomePage() {
  usePageMeta(
    pageTitle('Email marketing and transactional email, sent exactly once'),
    `Mailwright sends newsletters, drips and receipts from one console and API, keeps an exact copy of every email, and counts people, not machines. The first ${count(FREE_EMAILS_PER_MONTH)} emails a month are free.`,
  );
  const { hash } = useLocation();
  useEffect(() => {
    if (hash) document.getElementById(hash.slice(1))?.scrollIntoView();
  }, [hash]);

  return (
    <PublicLayout bare>
      <section className="mw-hero" aria-labelledby="hero-title">
        <div className="mw-container mw-hero-grid">
          <div className="mw-hero-text">
            <p className="mw-eyebrow">Marketing + transactional email</p>
            <h1 id="hero-title">Email sent exactly once, and kept exactly as sent.</h1>
            <p className="mw-lead">
              Newsletters, drips and receipts from one console and one API. Mailwright paces every relay, counts the people who read — not the machines that
              prefetch — and stores the message each person got.
            </p>
            <StartActions />
            <ul className="mw-hero-notes">
              <li>{count(FREE_EMAILS_PER_MONTH)} emails a month free</li>
              <li>No card to sign up</li>
              <li>
                <Link to="/pricing">See pricing</Link>
              </li>
            </ul>
          </div>
          <Picture name="insights" hero />
        </div>
      </section>

      <section id="features" className="mw-section" aria-labelledby="features-title">
        <div className="mw-container">
          <div className="mw-section-head">
            <p className="mw-eyebrow">Why Mailwright</p>
            <h2 id="features-title">Built for the parts other email services leave to trust</h2>
            <p>Six things we can show you, each with how we know it holds.</p>
          </div>
          <div className="mw-features">
            {DIFFERENCES.map((d) => (
              <article key={d.title} className="mw-feature">
                <Icon d={d.icon} />
                <h3>{d.title}</h3>
                <p>{d.text}</p>
                <p className="mw-proof">
                  <strong>How we know:</strong> {d.proof}
                </p>
              </article>
            ))}
          </div>
        </div>
      </section>

      <section className="mw-section mw-section-alt" aria-labelledby="tour-title">
        <div className="mw-container">
          <div className="mw-section-head">
            <p className="mw-eyebrow">The console</p>
            <h2 id="tour-title">Everything from the first contact to the last report</h2>
          </div>
          {TOUR.map((t, i) => (
            <div key={t.picture} className={`mw-tour${i % 2 ? ' mw-tour-flip' : ''}`}>
              <div className="mw-tour-text">
                <h3>{t.title}</h3>
                <p>{t.text}</p>
              </div>
              <Picture name={t.picture} />
            </div>
          ))}
          <h3 className="mw-also-title">Also in every account</h3>
          <ul className="mw-also">
            {ALSO.map((a) => (
              <li key={a}>{a}</li>
            ))}
          </ul>
        </div>
      </section>

      <section className="mw-section mw-dev" aria-labelledby="dev-title">
        <div className="mw-container mw-dev-grid">
          <div>
            <p className="mw-eyebrow mw-eyebrow-dark">For developers</p>
            <h2 id="dev-title">An API your backend can retry safely</h2>
            <ul className="mw-checks">
              <li>Send an Idempotency-Key and a retried batch is stored once.</li>
              <li>Bad input gets a 4xx that names the field, never a 5xx.</li>
              <li>The public API is documented in OpenAPI, with a step-by-step tutorial.</li>
              <li>Webhooks follow the Standard Webhooks specification: any of its libraries verifies them.</li>
            </ul>
            <div className="mw-actions mw-actions-left">
              <Link to="/docs" className="mw-button mw-light">
                Read the docs
              </Link>
              <Link to="/blog/api-documentation" className="mw-button mw-ghost">
                API reference
              </Link>
            </div>
          </div>
          <div className="mw-code-stack">
            <pre className="mw-code" tabIndex={0} aria-label="Posting an event with curl">
              <code>{EVENTS_EXAMPLE}</code>
            </pre>
            <pre className="mw-code" tabIndex={0} aria-label="Verifying a webhook in JavaScript">
              <code>{WEBHOOK_EXAMPLE}</code>
            </pre>
          </div>
        </div>
      </section>

      <section className="mw-section" aria-labelledby="price-title">
        <div className="mw-container">
          <div className="mw-section-head">
            <p className="mw-eyebrow">Pricing</p>
            <h2 id="price-title">Pay for the emails you send</h2>
            <p>No charge for contacts, seats or logo removal. Each month is billed at the cheapest of our three rates.</p>
          </div>
          <div className="mw-price-strip">
            {planCards().map((card) => (
              <div key={card.name} className="mw-price" data-testid={`home-price-${card.name}`}>
                <p className="mw-price-figure">{card.exactCost}</p>
                <p>
                  {card.emails === FREE_EMAILS_PER_MONTH
                    ? `for the first ${count(card.emails)} emails every month`
                    : `for ${count(card.emails)} emails in a month`}
                </p>
              </div>
            ))}
            <div className="mw-price">
              <p className="mw-price-figure">{lowestRateCents()}¢</p>
              <p>per 1,000 emails at our lowest rate</p>
            </div>
          </div>
          <p className="mw-center">
            <Link to="/pricing" className="mw-button mw-outlined">
              See pricing
            </Link>
          </p>
        </div>
      </section>

      <section className="mw-container mw-cta" aria-labelledby="cta-title">
        <h2 id="cta-title">Send your first campaign today</h2>
        <p>Sign up and send your first test in minutes. When you are ready for real recipients, tell us what you send and we activate your account.</p>
        <div className="mw-actions">
          <Link to="/signup" className="mw-button mw-light mw-large">
            Start free
          </Link>
          <Link to="/contact-us" className="mw-button mw-ghost mw-large">
            Talk to us
          </Link>
        </div>
      </section>
    </PublicLayout>
  );
}
