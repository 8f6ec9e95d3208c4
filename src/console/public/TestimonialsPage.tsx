/**
 * /testimonials (spec part 1 §2 names the route), shown as "Why teams switch": the problems Mailwright was built to fix,
 * what it does about each and where to check it for yourself, and what it is built with. No quotes: we show no
 * customer's words we cannot name and link to. Plain elements styled by site.css.
 */
import { Link } from 'react-router-dom';
import { pageTitle, usePageMeta } from './pageMeta';
import { PublicLayout } from './PublicLayout';
import { StartActions } from './StartActions';

/** A problem, what Mailwright does about it, and where to see it. */
const REASONS: Array<{ problem: string; answer: string; check: { to: string; label: string } }> = [
  {
    problem: 'Open rates inflated by Apple Mail and link scanners',
    answer:
      'Mailwright records machine opens and bot clicks but leaves them out of rates, segments and workflow triggers, so a number means people. A switch on every report shows them again.',
    check: { to: '/demo-login', label: 'See the switch on the demo’s Insights' },
  },
  {
    problem: '“What exactly did this customer get?”',
    answer: 'An exact copy of every email is stored before it is sent, and opens from each contact’s history, rendered as it was received.',
    check: { to: '/blog/other-esps-guess', label: 'Read why we keep the email' },
  },
  {
    problem: 'A redeploy in the middle of a blast sends it twice',
    answer:
      'Each recipient’s email is claimed under a lease and marked sent together with its event. A test kills the server while the relay holds unacknowledged messages and checks that everyone got exactly one.',
    check: { to: '/docs', label: 'How sending works' },
  },
  {
    problem: 'A new domain’s first big send lands in spam',
    answer:
      'New sending domains warm up on a daily schedule, each relay is held to its rate and connections across every process, and mailbox providers get their own limits.',
    check: { to: '/docs', label: 'Configure the governor' },
  },
  {
    problem: 'Paying for contacts you never mail',
    answer: 'You pay per email sent, at the cheapest of three rates for your month. Contacts, seats and logo removal cost nothing.',
    check: { to: '/pricing', label: 'Work out your month' },
  },
  {
    problem: 'Webhooks that arrive twice, out of order, or never',
    answer:
      'Messages are written in the same transaction as the event, signed to the Standard Webhooks specification, delivered in order per contact and retried for three days with the same id.',
    check: { to: '/blog/api-documentation', label: 'Read the API documentation' },
  },
  {
    problem: 'Moving a list means re-mapping every column',
    answer: 'Import a Mailchimp, Brevo or HubSpot export as it is: the columns are matched for you and shown with the first rows before anything is saved.',
    check: { to: '/signup', label: 'Import your list' },
  },
];

const BUILT_WITH = [
  {
    name: 'Email authentication',
    text: 'DKIM signing for your verified sending domains, SPF and DMARC checks, and the one-click unsubscribe headers mailbox providers expect.',
  },
  { name: 'Automation', text: 'Connect Mailwright to your shop, CRM and forms through Make, or post events to the API from your own product.' },
  {
    name: 'Open building blocks',
    text: 'PostgreSQL and Node.js with well-kept open-source libraries. It runs on one machine, or scales out with PostgreSQL and S3-compatible storage.',
  },
];

/** TestimonialsPage says why teams move to Mailwright, without testimonials. */
export function TestimonialsPage() {
  usePageMeta(
    pageTitle('Why teams switch'),
    'The problems Mailwright was built to fix — inflated open rates, lost copies, double sends, cold domains, per-contact bills — and where to check each yourself.',
  );
  return (
    <PublicLayout>
      <div className="mw-why">
        <div className="mw-prose">
          <p className="mw-eyebrow">Why Mailwright</p>
          <h1 className="mw-page-title">Why teams switch</h1>
          <p className="mw-lead">
            We would rather show you than quote anyone. Here are the problems Mailwright was built to fix, what it does about each, and where you can check it
            for yourself.
          </p>
        </div>
        <ol className="mw-reasons">
          {REASONS.map((r) => (
            <li key={r.problem} className="mw-card">
              <h2>{r.problem}</h2>
              <p>{r.answer}</p>
              <p className="mw-check">
                <Link to={r.check.to}>{r.check.label}</Link>
              </p>
            </li>
          ))}
        </ol>
        <h2 className="mw-why-title">What it is built with</h2>
        <div className="mw-cards">
          {BUILT_WITH.map((b) => (
            <section key={b.name} className="mw-card" aria-labelledby={`built-${b.name.replace(/\W+/g, '-').toLowerCase()}`}>
              <h3 id={`built-${b.name.replace(/\W+/g, '-').toLowerCase()}`}>{b.name}</h3>
              <p>{b.text}</p>
            </section>
          ))}
        </div>
        <StartActions className="mw-why-actions" />
      </div>
    </PublicLayout>
  );
}
