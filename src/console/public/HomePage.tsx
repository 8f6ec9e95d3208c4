/**
 * The public home page (spec part 1 §2 "/" when logged out): a hero, the why-the-product cards (usage-based cost,
 * segmentation, contact maintenance, timezone targeting, what was sent) and a call to action. Plain elements styled by
 * site.css, so / loads no component library.
 */
import { Link } from 'react-router-dom';
import { PublicLayout } from './PublicLayout';
import { FREE_EMAILS_PER_MONTH } from '../../domain/pricing';

const CARDS = [
  {
    title: 'Usage-based cost',
    text: `Pay for what you send. The first ${FREE_EMAILS_PER_MONTH.toLocaleString('en-US')} emails a month are free; no charge for contacts, seats or logo removal.`,
  },
  { title: 'Segmentation', text: 'Group contacts by hand, by file or by filters on their data and activity.' },
  { title: 'Contact maintenance', text: 'Upload contacts in bulk, keep metadata per contact and honour unsubscribes automatically.' },
  { title: 'Timezone targeting', text: 'Send at a time in your zone, another zone, or each receiver’s own zone.' },
  { title: 'See what was sent', text: 'An exact copy of every sent email is stored so you can see what each contact received.' },
];

/** HomePage is the logged-out landing page with links to sign up, log in, pricing and the demo. */
export function HomePage() {
  return (
    <PublicLayout>
      <section className="mw-hero">
        <h1>Email marketing and transactional email, priced by the send</h1>
        <p className="mw-lead">Templates, scheduled blasts, drip workflows and event-triggered campaigns in one console.</p>
        <div className="mw-actions">
          <Link to="/login" className="mw-button mw-contained">
            Log in
          </Link>
          <Link to="/pricing" className="mw-button mw-outlined">
            See pricing
          </Link>
        </div>
      </section>
      <div className="mw-cards">
        {CARDS.map((c) => (
          <section key={c.title} className="mw-card">
            <h2>{c.title}</h2>
            <p>{c.text}</p>
          </section>
        ))}
      </div>
      <section className="mw-cta">
        <h2>Ready to send?</h2>
        <div className="mw-actions">
          <Link to="/signup" className="mw-button mw-contained">
            Sign up
          </Link>
          <Link to="/demo-login" className="mw-button mw-outlined">
            Try the demo
          </Link>
        </div>
      </section>
    </PublicLayout>
  );
}
