/**
 * The bodies of the blog's text posts (spec part 1 §1 claims, §2 /blog): exact copies of sent email,
 * timezone-aware sending, event-triggered and drip email, the Make integration, the how-to video's chapters, and the
 * unlisted serverless post. The two posts that embed an API document are ApiDocumentationPost.tsx and MakeSpecPost.tsx.
 * Figures come from src/domain so the text says what the product does.
 */
import { List, ListItem, ListItemText, Typography } from '@mui/material';
import { FREE_EMAILS_PER_MONTH } from '../../../domain/pricing';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox';
import { C, Code, P, Section, To } from './parts';

const FREE = FREE_EMAILS_PER_MONTH.toLocaleString('en-US');

/** OtherEspsGuessPost: why an exact copy of every sent email is stored (spec part 1 §1). */
export function OtherEspsGuessPost() {
  return (
    <>
      <P>
        A customer writes in: “Your email said the code was WINTER20, and it doesn’t work.” Before anyone can help, someone has to answer a simple question:
        what exactly was in the email that person received?
      </P>
      <P>
        Most email service providers answer it by rendering the template again with today’s data and showing you the result. That is a guess. The template may
        have been edited since the send, the contact’s first name or plan may have changed, and an A/B split may have given that person the other variant. The
        preview looks right, and it may not be what was sent.
      </P>
      <Section title="What Mailwright keeps">
        <P>
          Mailwright stores an exact copy of every email it sends: the subject, the HTML and plain-text bodies with every variable already filled in, the sender
          and the recipient, exactly as they were handed to the mail server. Nothing is re-rendered when you look at it later, so what you see is what the
          recipient got.
        </P>
        <P>
          Keeping the copy costs you nothing extra. You pay for the emails you send (the first {FREE} a month are free), and there is no charge for storage,
          contacts, seats or logo removal.
        </P>
      </Section>
      <Section title="Where to find a sent email">
        <P>
          The Recent emails list on Insights links every send to its stored copy, and the Events screen does the same for each send result. The copy opens in a
          new tab in the email viewer, which shows the body exactly as sent, or says “No email body found” if there is none for that send.
        </P>
      </Section>
      <Section title="Why it matters">
        <P>
          Support stops guessing: the answer to “what did I get?” is one click away. Compliance gets evidence: you can show the footer, the unsubscribe link and
          the wording a person actually received on a given day. And template bugs show themselves: a variable with no value renders blank, and in the stored
          copy you see the blank instead of a preview that quietly fills it in.
        </P>
        <P>
          Want to see it for yourself? <To to="/demo-login">Try the demo</To> or <To to="/signup">sign up</To>; the first {FREE} emails every month are free.
        </P>
      </Section>
    </>
  );
}

/** TimezonePost: the three ways to time a blast (spec part 1 §1 "Timezone-aware sending"). */
export function TimezonePost() {
  return (
    <>
      <P>
        A newsletter scheduled for 9 am in New York reaches Berlin at 3 pm and Tokyo at 11 pm. If your readers are spread around the world, one send time is the
        right time for only some of them. Mailwright lets you choose what “9 am” means for each email blast.
      </P>
      <Section title="Three ways to schedule a blast">
        <List component="ol" sx={{ listStyle: 'decimal', pl: 3, mb: 2 }}>
          <ListItem sx={{ display: 'list-item', pl: 0 }}>
            <ListItemText
              primary="Your own zone"
              secondary="The blast goes out at the time you pick, where you are. Right for announcements that should land everywhere at once."
            />
          </ListItem>
          <ListItem sx={{ display: 'list-item', pl: 0 }}>
            <ListItemText
              primary="Another zone"
              secondary="You are in London, the store opening is in Los Angeles: pick America/Los_Angeles and 9:00, and the blast goes out at 9 am there."
            />
          </ListItem>
          <ListItem sx={{ display: 'list-item', pl: 0 }}>
            <ListItemText
              primary="Each receiver’s own zone"
              secondary="Pick “Contact’s local timezone” and every contact gets the email at 9 am in their own zone: Tokyo first, Hawaii last."
            />
          </ListItem>
        </List>
      </Section>
      <Section title="How each receiver’s zone is known">
        <P>
          Every contact has a time zone field that holds an IANA zone name such as <C>Europe/Berlin</C> or <C>America/New_York</C>. Set it when you add contacts
          one by one, include a timezone column when you upload a file, or send it with the API (<C>timezone</C> on <C>POST /users</C>). A contact with no zone,
          or one we do not recognise, gets a contact-local blast at the chosen wall-clock time in UTC.
        </P>
      </Section>
      <Section title="Daylight saving, handled">
        <P>
          Send times are wall-clock times read through the time zone database, so clocks changing are not your problem. On the night clocks spring forward, a
          time that does not exist that day moves forward by the gap; on the night they fall back, a time that happens twice is taken at its first occurrence.
        </P>
        <P>
          A blast in each contact’s own zone starts when the first zone on Earth (UTC+14) reaches the chosen time and finishes about a day later, when the last
          one does. Schedule it at least a day ahead so nobody’s 9 am has already gone by.
        </P>
      </Section>
      <Section title="From the API">
        <P>
          The same choice is two fields of <C>POST /scheduler</C>: <C>send_at</C>, a date and time without an offset, and <C>timezone</C>, an IANA zone or
          “Contact’s local timezone”.
        </P>
        <Code label="Blast fields for 9 am in each contact's zone">{`{
  "send_at": "2026-12-01T09:00",
  "timezone": "contacts local timezone"
}`}</Code>
      </Section>
    </>
  );
}

/** EventEmailPost: event-triggered transactional email and drip workflows fed by the events API (spec part 1 §1, §7). */
export function EventEmailPost() {
  return (
    <>
      <P>
        Some emails are not for a whole list on a chosen day. They answer something one person just did: signed up, placed an order, left a cart, reached the
        end of a trial. Mailwright sends those from events you post to your account’s endpoint.
      </P>
      <Section title="Post an event">
        <P>
          Your events endpoint and API key are on <To to="/account/settings">Settings</To> in the console, with a sample you can paste into a shell. Send the
          key in the <C>x-api-key</C> header:
        </P>
        <Code label="Posting an event with curl">{`curl -X POST "https://<your event gateway>/events" \\
  -H 'Content-Type: application/json' \\
  -H "x-api-key: $MAILWRIGHT_API_KEY" \\
  -H 'Idempotency-Key: order-A-1001' \\
  -d '{"events":[{"name":"order_completed","email":"ada@example.com","metric1":1,"metric2":49.9,"json":{"order_id":"A-1001"}}]}'`}</Code>
        <P>
          Each event names a contact by email. <C>metric1</C> to <C>metric3</C> are numbers (an amount, a quantity), and <C>json</C> holds anything else. A
          batch takes up to 1,000 events; good events are stored even when others in the batch are not, and the answer lists the failed ones by position. Send
          an <C>Idempotency-Key</C> and a retried batch is never stored twice.
        </P>
      </Section>
      <Section title="Transactional email: one event, one email">
        <P>
          Receipts, password resets and shipping notices are transactional: they go to the person who triggered them, straight away. Use a transactional
          template for them; unlike marketing email, they still reach a contact who has unsubscribed from your newsletters.
        </P>
      </Section>
      <Section title="Drip campaigns: one event, a sequence">
        <P>
          A workflow turns an event into a sequence. It starts with a trigger (the event’s name), passes through manipulator steps that shape the flow, such as
          waiting a few days, and ends in sender steps that each send a template. A <C>trial_started</C> event can start a welcome email today, tips in two days
          and an upgrade reminder before the trial ends.
        </P>
      </Section>
      <Section title="See what happened">
        <P>
          Every event you post appears on the Events screen next to the system’s own (sends, opens, clicks, bounces, complaints and unsubscribes). The reports
          on Insights follow what the emails did, and every email sent is kept as an exact copy, so you can always see what a customer received.
        </P>
      </Section>
    </>
  );
}

/** MakeIntegrationPost: the upsell post for the Make integration (spec part 1 §1 "Integrations exist with two automation platforms"). */
export function MakeIntegrationPost() {
  return (
    <>
      <P>
        Not every team has a developer free to write integration code. With the Mailwright app for Make, the automation platform, your forms, shop and CRM can
        feed Mailwright directly: build a scenario, map a few fields, and it runs.
      </P>
      <Section title="What you can automate">
        <List sx={{ mb: 2 }}>
          <ListItem>
            <ListItemText
              primary="New sign-ups become contacts"
              secondary="A form submission adds or updates the contact, with their time zone and any metadata you map."
            />
          </ListItem>
          <ListItem>
            <ListItemText
              primary="Orders become events"
              secondary="An order in your shop posts an order_completed event, which sends the receipt and starts your post-purchase sequence."
            />
          </ListItem>
          <ListItem>
            <ListItemText primary="CRM lists become segments" secondary="A scenario turns a list from your CRM into a segment you can send to." />
          </ListItem>
          <ListItem>
            <ListItemText
              primary="Blasts on a schedule"
              secondary="A weekly scenario schedules a blast of your digest template to a segment, at 9 am in each reader’s zone."
            />
          </ListItem>
        </List>
      </Section>
      <Section title="Connect in two minutes">
        <P>
          In the console, open Account, then <To to="/account/api">Integrations</To>. Copy your project’s integration key and paste it into a new Mailwright
          connection in Make; the app sends it with every call. Every module and the exact calls it makes are described in the{' '}
          <To to="/blog/make-integration-api-spec">Make integration API spec</To>.
        </P>
        <P>
          Our second automation-platform integration is open by invitation while it is in beta. <To to="/contact-us">Tell us what you want to automate</To> and
          we will send you an invitation. Prefer code? The <To to="/blog/api-documentation">API documentation</To> covers the same operations.
        </P>
      </Section>
      <Section title="Priced like everything else">
        <P>
          Emails started from Make cost the same as any other send: you pay for what you send, the first {FREE} emails a month are free, and there is no charge
          for contacts, seats or logo removal. <To to="/pricing">See pricing</To> or <To to="/signup">sign up</To> and connect your first scenario today.
        </P>
      </Section>
    </>
  );
}

/** One chapter of the how-to video: start (m:ss), title and what it covers. */
const CHAPTERS: Array<[string, string, string]> = [
  ['0:00', 'What we will build', 'A monthly newsletter sent to a segment at 9 am in each reader’s own time zone.'],
  [
    '0:40',
    'Sign up and the sandbox',
    `A new account starts in the sandbox, where you can send only to the simulator address ${SIMULATOR_SUCCESS_ADDRESS} and your own sender personas. To leave it: add a template, create contacts, create a sender persona and email support with your expected monthly volume.`,
  ],
  ['2:05', 'Add contacts', 'Add one contact, then upload a spreadsheet with email, name and time zone columns, and watch the upload’s progress.'],
  ['4:10', 'Build a segment', 'Group contacts by hand, from a file, or with filters on their data and activity.'],
  [
    '5:35',
    'Design a template',
    'Lay out the email in the designer, personalise it with {{user.first_name}}, and add the unsubscribe link, {{unsubscribe_link}}, which every marketing template must contain.',
  ],
  ['8:20', 'Create a sender persona', 'The name and address your readers see in the From line.'],
  ['9:15', 'Schedule the blast', 'Pick the template (or two, for an A/B split), the persona and the segment, then 9:00 in “Contact’s local timezone”.'],
  [
    '11:30',
    'Campaigns and reports',
    'Group blasts into a campaign, follow sends, opens, clicks, bounces and unsubscribes on Insights, and open the exact copy of any email sent.',
  ],
  ['13:20', 'Wrap-up', 'Where to go next: event-triggered emails, drip workflows and the API.'],
];

const isoDuration = (mss: string) => {
  const [m, s] = mss.split(':').map(Number);
  return `PT${m}M${s}S`;
};

/** HowToSendCampaignPost: the how-to video, shown as its chapters (spec part 1 §2 "a video with timestamps"). */
export function HowToSendCampaignPost() {
  return (
    <>
      <P>
        This walkthrough goes from a new account to a sent campaign in about fourteen minutes. Every step happens in the console, and each one is listed below
        with the point in the video where it starts.
      </P>
      <Typography role="note" sx={{ mb: 2, p: 2, bgcolor: 'grey.100', borderRadius: 1, maxWidth: '75ch' }}>
        Note: the video itself is not included in this copy of the site, which loads nothing from other websites. The chapters below describe what each part
        shows, and every step works the same way in the console.
      </Typography>
      <Section title="Chapters">
        <List component="ol" aria-label="Video chapters" sx={{ mb: 2 }}>
          {CHAPTERS.map(([at, title, text]) => (
            <ListItem key={at} alignItems="flex-start" sx={{ gap: 2 }}>
              <Typography component="time" dateTime={isoDuration(at)} sx={{ fontFamily: 'monospace', minWidth: '3.5em', pt: '6px' }}>
                {at}
              </Typography>
              <ListItemText primary={title} secondary={text} />
            </ListItem>
          ))}
        </List>
      </Section>
      <Section title="Try it yourself">
        <P>
          <To to="/signup">Sign up</To> and follow along; the first {FREE} emails a month are free. Or open the <To to="/demo-login">demo</To> to look around an
          account that already has contacts, templates and reports.
        </P>
      </Section>
    </>
  );
}

/**
 * ServerlessPost is /blog/serverless: it exists (spec part 1 §2 "A serverless post also exists") but is not one of the
 * index's six posts, so only its URL reaches it.
 */
export function ServerlessPost() {
  return (
    <>
      <P>
        Serverless functions, such as AWS Lambda, Cloudflare Workers or Vercel functions, run for a moment and are gone. That is a poor fit for sending email
        yourself: no long-lived SMTP connection, no queue to retry from, nowhere to keep a copy of what went out. It is a perfect fit for posting an event.
      </P>
      <Section title="One HTTP call">
        <P>
          From your function, post the event to your account’s endpoint (on <To to="/account/settings">Settings</To>) with your API key. Mailwright does the
          rest: it matches the event to your workflows and event-triggered campaigns, renders the template, sends it and keeps the exact copy.
        </P>
        <Code label="Posting an event from a serverless function">{`export async function handler(order) {
  const res = await fetch(process.env.MAILWRIGHT_EVENTS_URL, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'x-api-key': process.env.MAILWRIGHT_API_KEY,
      // The platform may run the function again; the same key stores the batch once.
      'Idempotency-Key': \`order-\${order.id}\`,
    },
    body: JSON.stringify({
      events: [{ name: 'order_completed', email: order.email, metric1: order.total, json: { order_id: order.id } }],
    }),
  });
  if (!res.ok) throw new Error(\`Mailwright answered \${res.status}\`);
}`}</Code>
      </Section>
      <Section title="Retries without duplicates">
        <P>
          Serverless platforms retry a function that fails or times out, so the same event can be posted twice. Send an <C>Idempotency-Key</C> header that is
          the same for the same batch (the order id is a good choice): for 24 hours a repeat is answered with the first reply and nothing is stored twice.
        </P>
      </Section>
      <Section title="Keep the key on the server">
        <P>Your API key can change anything in your project, so keep it in the function’s secrets or environment, never in code that runs in a browser.</P>
      </Section>
      <Section title="Pay per use, like your functions">
        <P>
          Mailwright is priced the way serverless is: by use. The first {FREE} emails a month are free, then you pay per email sent, with no charge for
          contacts, seats or logo removal. <To to="/pricing">See pricing</To>.
        </P>
      </Section>
    </>
  );
}
