/**
 * The changelog (/docs/changelog): one release a day, newest first, each summarised by theme in customers' words from
 * the day's commits (`git log`), dated by their commit dates. Add a release at the top when one ships.
 */

export interface Release {
  /** The day it shipped, YYYY-MM-DD (UTC). */
  date: string;
  title: string;
  /** One line per change, what it means for you. */
  changes: readonly string[];
}

export const RELEASES: readonly Release[] = [
  {
    date: '2026-11-29',
    title: 'Transactional email over SMTP and a sending API, documentation, your account at a glance',
    changes: [
      'Send from any application over SMTP: Account → SMTP makes a credential per application (shown once, revocable at once), on port 587 with STARTTLS or 465 with TLS. Every recipient, Bcc included, gets one copy, and a Bcc is never shown.',
      'A sending API in the familiar shape: POST /api/email with from, to, cc, bcc, reply_to, html, text or a template with variables, attachments, tags and metadata; a batch of up to 500; an Idempotency-Key so a retry never sends twice.',
      'Message streams: transactional mail (not tracked, not stopped by newsletter unsubscribes) and broadcast mail stay apart, each with its own tracking and, if you like, its own relay. A hard bounce or complaint stops both.',
      'Messages: find any email by recipient, subject, Message-ID or tag, and see its timeline — queued, the relay’s answer, deferrals, bounces, opens and clicks by people — beside the copy that was sent.',
      'Documentation: quick starts for the console, the API, webhooks and running Mailwright yourself; a reference of every API gateway you can try from the page; and this changelog. Each gateway’s OpenAPI document is served at /openapi/<gateway>.json.',
      'Insights opens on your account at a glance: contacts, campaigns, this month’s sends, and the latest campaign’s sends, opens and clicks. A menu under your initials holds Account settings, API keys and Sign out; each navigation section has an icon.',
      'Sign-up takes you straight into the console, signed in.',
      'Templates: the inbox preview text is a field of the editor, shown beside the subject in the previews; the starters carry no hidden sample text.',
      'Contact import: an address repeated in another letter case is merged into its first row, and the upload screen lists the rows it merged.',
      'Reports leave test emails out, so one real send opened once reads 100 %, not 50 %.',
      'Sending domains: the SPF value to publish is merged into the SPF record you already have. The send wizard’s review warns when a persona’s mail would go out without a DKIM signature.',
      'Workflow runs show when a delay waits until, and dates read in your own locale and time zone. Subscribe forms of an account in the sandbox say plainly that sign-ups are not open yet.',
      'Send wizard: a page’s message appears once you change a field or press Continue, and the review’s preview signs off as the sender persona you chose.',
    ],
  },
  {
    date: '2026-11-28',
    title: 'Bounces that come back to you, provider webhooks, safer sending',
    changes: [
      'Returned mail is read for you: each sending domain gets a bounce subdomain, and bounces and complaint reports come back to Mailwright’s own receiver, or from an IMAP mailbox you name. Every failure is classified as hard, soft, sender-side, complaint or auto-reply; delay warnings are no longer counted as bounces.',
      'Bounce and complaint webhooks from Postmark, Mailgun, SendGrid, Brevo and Resend, set up from a card on the Integrations page.',
      'An alert when receivers start refusing a sending domain’s mail for the sender’s fault (block lists, policy), naming the domain and relay.',
      'Mail to a provider with its own rate limit flows at that rate beside the rest of a blast, even while a relay is down. The reputation circuit-breaker looks as sends accumulate, not only when feedback arrives.',
      'Webhook signing secrets are shown once, when made or rotated; Reveal shows one again and notes it in Notifications.',
      'Workflow triggers on opens and clicks count people by default, not mail-privacy proxies or link scanners.',
      'The events API refuses the names of Mailwright’s own events, so your reports and bill count only real sends.',
      'Relays that require the signed-in mailbox as sender (such as Microsoft 365) are supported; a stopping server hands back the emails it had claimed at once.',
    ],
  },
  {
    date: '2026-11-27',
    title: 'Webhooks, subscription topics and subscribe forms',
    changes: [
      'Webhooks: endpoints receive signed messages for the events you choose, retried for up to 3 days, with a delivery log, test events and Send again.',
      'Subscription topics with a preference centre where recipients leave one topic or everything, and hosted subscribe forms with double opt-in and consent records.',
      'Contact import: confirm each file’s columns before it is imported, with its first rows and where each column goes; exports from other services are recognised.',
      'A gallery of five template starters; the wizard’s review renders the email at laptop and phone widths; Send now on the blast form.',
      'One sender persona per address, with its confirmation status and a Resend link on the list.',
      'The console and the public site fit a phone: no sideways scrolling, the site’s links in a menu.',
      'For those who run Mailwright: an operator back-office, Prometheus metrics, S3-compatible storage, a Docker Compose deployment, and a faster start. Previews of very large audiences answer at once.',
    ],
  },
  {
    date: '2026-11-26',
    title: 'Honest numbers',
    changes: [
      'Opens made by mail-privacy proxies and image proxies, and clicks made by link scanners, are recognised and left out of your figures; an Include machine opens switch brings them back.',
      'Your own previews in the console never count as opens.',
      'The campaigns list and the segment filters count people’s opens and clicks; recent opens and clicks say who made them.',
      'Sending paced to the second holds against relays that count per calendar second. A mistyped setting stops the start with one line naming it.',
    ],
  },
  {
    date: '2026-11-25',
    title: 'A delivery governor, and a sturdier API',
    changes: [
      'Pace your relay: a sending rate, a connection limit and a daily quota over all sending processes, several relays with priorities, weights and failover, and limits per mailbox provider.',
      'New sending domains warm up on a schedule, and deferred emails are never dropped: they are retried with growing waits, and the blast list shows them as Deferred.',
      'A reputation circuit-breaker pauses marketing sending when bounces or complaints run high, with a banner and a Resume button. The send wizard estimates how long a send will take.',
      'The API refuses a reused Idempotency-Key sent with a different batch, upload URLs work once, sign-in attempts are limited, and every answer carries security headers.',
      'One-click unsubscribe headers are DKIM-signed, and so is the service’s own mail.',
    ],
  },
  {
    date: '2026-11-24',
    title: 'Insights, campaigns, workflows and the send wizard',
    changes: [
      'Insights: sends, opens, clicks, bounces and complaints over 24 hours and 31 days, statistics, most-clicked links and an analysis of every campaign.',
      'Campaigns group your blasts, workflows and templates, with their metrics and A/B results.',
      'Workflows: a visual editor for event-triggered journeys — trigger, delay, filter, send — and each contact’s path through them.',
      'The send wizard: one-time blasts, A/B tests, event-triggered emails and drip campaigns, with a review of the audience, who is left out and the cost before you launch.',
      'Excel contact files import about twice as fast.',
    ],
  },
  {
    date: '2026-11-23',
    title: 'The public site, sending domains and contacts at scale',
    changes: [
      'The public site: pricing, sign-up, the shared demo account, a contact form and the blog, with the API documented.',
      'Sending domains with DKIM, SPF and DMARC records to copy and their status; sender personas confirm their address by email.',
      'A drag-and-drop template designer that also works offline, image uploads, and scripts removed from what is sent.',
      'Contact files in CSV or Excel, up to millions of rows; segments from a file or from filters; each contact’s email history.',
      'A suppression list you can manage over the API.',
    ],
  },
  {
    date: '2026-11-22',
    title: 'First release',
    changes: [
      'The console: contacts, sender personas, templates and scheduled email blasts, with Recent emails and an exact copy of every email sent.',
      'Sending over real SMTP, exactly once per recipient, even across a crash; blasts in each contact’s own time zone, right across daylight-saving changes.',
      'Open and click tracking, one-click unsubscribe, bounce and complaint feedback, and a suppression list.',
      'An API for everything the console does, with your key in the x-api-key header, on an embedded database or PostgreSQL.',
    ],
  },
];
