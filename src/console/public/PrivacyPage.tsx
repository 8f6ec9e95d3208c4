/**
 * /privacy: what Mailwright stores about whom, why, and who can see it, in plain words. Every statement is about what
 * the code does (sign-up, the contact form, tracking in src/server/core/feedback, consent records in
 * src/server/core/subscriptions, the console's cookies in src/console/session.ts and source.ts); a self-hosted install
 * stores the same on its operator's own machines.
 */
import { Link } from 'react-router-dom';
import { SUPPORT_EMAIL } from '../../domain/errors';
import { pageTitle, usePageMeta } from './pageMeta';
import { PublicLayout } from './PublicLayout';

/** PrivacyPage is the privacy notice. */
export function PrivacyPage() {
  usePageMeta(
    pageTitle('Privacy'),
    'What Mailwright stores about you and your contacts, why, who can see it and how to have it removed. No advertising trackers, no selling of data.',
  );
  return (
    <PublicLayout>
      <article className="mw-prose">
        <p className="mw-eyebrow">Legal</p>
        <h1 className="mw-page-title">Privacy</h1>
        <p className="mw-updated">Last updated 29 November 2026</p>
        <p className="mw-lead">
          We store what we need to send your email and show you what happened to it, and nothing for advertising. We do not sell or rent anyone’s data.
        </p>
        <div className="mw-callout">
          <p>
            <strong>Running Mailwright yourself?</strong> Then everything below is stored on your own servers, in your PostgreSQL database and your storage
            folder or bucket, and you decide who sees it. Nothing is sent back to us.
          </p>
        </div>

        <h2>Who is responsible</h2>
        <p>
          For your account (the people who sign in), we are. For the contacts you upload and email, you are: you decide whom to email and why, and we process
          their data on your behalf, only to send and report on your email.
        </p>

        <h2>What we store</h2>
        <h3>About you, when you sign up or use the console</h3>
        <ul>
          <li>Your name, business name, business website and email address, and the plan and promo code you chose.</li>
          <li>Your password, as a bcrypt hash: we cannot read it.</li>
          <li>Failed sign-in attempts per network address and per account, to slow down password guessing.</li>
          <li>What you create: contacts, segments, templates, sender personas, campaigns, workflows and settings.</li>
        </ul>
        <h3>When you write to us or try the demo</h3>
        <ul>
          <li>The contact form keeps your email, your name if you give it, and your message, so we can answer.</li>
          <li>The demo asks for an email address and your agreement to its terms before signing you in to the shared demo account.</li>
        </ul>
        <h3>About your contacts</h3>
        <ul>
          <li>What you import or send through the API: email address, names, time zone, date of birth and any metadata you add.</li>
          <li>An exact copy of every email sent to them, so you can see what each person received.</li>
          <li>
            What happened to each email: sent, deferred, bounced, complained, opened, clicked, unsubscribed. An open or a click records the reader’s user agent
            and device type; the network address is used to recognise privacy proxies and is not kept with the event.
          </li>
          <li>
            For sign-ups through a subscribe form: when and from which network address and browser they subscribed and confirmed, and the consent text they saw.
            The confirmation email itself tracks nothing.
          </li>
          <li>Bounces and complaints reported by receiving servers, and the suppression list that stops further mail to those addresses.</li>
        </ul>

        <h2>Cookies</h2>
        <p>This site and the console use only first-party cookies, and no advertising or analytics cookies:</p>
        <ul>
          <li>
            <code>user_info</code>: your signed-in session, for 24 hours while you use it. Logging out removes it.
          </li>
          <li>
            <code>source_info</code>: set for 12 hours only if you arrive through a partner’s promotion, so sign-up can apply its code.
          </li>
          <li>Operators of the service have their own sign-in cookie, limited to their back-office.</li>
        </ul>
        <p>
          If the service is set up with a captcha on sign-up and the contact form, those two pages load the captcha provider’s script, which has its own privacy
          terms. Nothing else on this site loads anything from another company.
        </p>

        <h2>Who can see it</h2>
        <ul>
          <li>You and the admins you add to your project. Projects never see each other’s data.</li>
          <li>Our operators, to activate accounts, answer support requests and stop abuse. Every change they make to an account is written to an audit log.</li>
          <li>The SMTP relays and storage providers the service is configured with, which carry and store email on our behalf.</li>
        </ul>

        <h2>How long we keep it</h2>
        <p>
          Your data is kept while your account is open. Contacts who sign up through a form but never confirm are archived after the form’s waiting period (7
          days unless you change it). The shared demo account is reset to its sample contents regularly, removing what visitors added.
        </p>

        <h2>Your choices</h2>
        <ul>
          <li>You can read, edit and archive your contacts from the console or the API at any time; archived contacts get no mail.</li>
          <li>Every marketing email carries an unsubscribe link and a one-click unsubscribe header; unsubscribing stops marketing mail from that sender.</li>
          <li>
            To see, correct or remove the data we hold about you (archived contacts and stored copies of emails included), or to close your account, write to{' '}
            <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a> or use the <Link to="/contact-us">contact form</Link>. If you are one of our customers’
            contacts, ask the sender first: they decide about their list.
          </li>
        </ul>

        <h2>Security</h2>
        <p>
          How we protect this data is described on the <Link to="/security">security page</Link>.
        </p>
      </article>
    </PublicLayout>
  );
}
