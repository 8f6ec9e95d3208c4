/**
 * The quick starts' bodies, one component each (by slug): numbered steps with the console's own screen names, and
 * commands and code that work against this product — the requests are examples.ts's, which the docs' browser test
 * sends to a running server. The API examples address this site (window.location.origin).
 */
import { Fragment, type ComponentType, type ReactNode } from 'react';
import { Box, Table, TableBody, TableCell, TableContainer, TableHead, TableRow } from '@mui/material';
import { FREE_EMAILS_PER_MONTH } from '../../../domain/pricing';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks';
import { C, CodeBlock, CodeTabs, Note, P, Section, Step, Steps, To, UiPath } from './docsParts';
import {
  CREATE_PERSONA,
  createWebhookEndpoint,
  curlCommand,
  nodeCall,
  pretty,
  RECEIVER_SERVER,
  SAVE_TEMPLATE,
  scheduleBlast,
  SEND_ONE_EMAIL,
  sendWebhookTest,
  UPSERT_CONTACTS,
  VERIFY_FUNCTION,
} from './examples';
import { apiReferencePath, quickStartPath } from './docsPages';

/** A small table of two or three columns, scrolling sideways inside itself on a phone. */
function SimpleTable({ label, head, rows }: { label: string; head: readonly string[]; rows: ReadonlyArray<readonly ReactNode[]> }) {
  return (
    <TableContainer sx={{ mb: 2, maxWidth: '100%', overflowX: 'auto', border: 1, borderColor: 'divider', borderRadius: 1 }}>
      <Table size="small" aria-label={label}>
        <TableHead>
          <TableRow>
            {head.map((h) => (
              <TableCell key={h} sx={{ fontWeight: 600 }}>
                {h}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row, i) => (
            <TableRow key={i}>
              {row.map((cell, j) => (
                <TableCell
                  key={j}
                  sx={{
                    verticalAlign: 'top',
                    px: { xs: 1, sm: 2 },
                    ...(j === 0 ? { whiteSpace: 'nowrap', '& code': { overflowWrap: 'normal' } } : { overflowWrap: 'anywhere' }),
                  }}
                >
                  {cell}
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** SandboxNote says what a new account may send to. */
function SandboxNote() {
  return (
    <Note title="New accounts start in the sandbox.">
      Until your account is activated it sends only to the simulator address <C>{SIMULATOR_SUCCESS_ADDRESS}</C> (accepted, never delivered to a person) and to
      the addresses of your own sender personas. The checklist on Insights shows the steps to activation; its last one, <strong>Request activation</strong>,
      tells us your expected volume and use.
    </Note>
  );
}

/** Send a first blast from the console: sign up, persona, template, contacts, the send wizard. */
function FirstBlastFromTheConsole() {
  return (
    <>
      <Steps label="Steps to a first blast">
        <Step title="Sign up">
          <P>
            Open <To to="/signup">Sign up</To> and fill in <strong>Business name</strong>, <strong>Business email</strong> (it becomes your sign-in) and a{' '}
            <strong>Password</strong> of at least 8 characters with a letter and a digit; your name and website are optional. Press <strong>Sign up</strong>:
            you land on <strong>Insights</strong>, signed in. The first {FREE_EMAILS_PER_MONTH.toLocaleString('en-US')} emails a month are free.
          </P>
          <SandboxNote />
        </Step>
        <Step title="Create a sender persona">
          <P>
            A sender persona is the name and address your emails come from. Open <UiPath parts={['People', 'Sender Personas', 'Create Persona']} />. On{' '}
            <strong>New Sender Persona</strong> enter the <strong>Email</strong> (an inbox you can read) and a <strong>First name</strong>, then{' '}
            <strong>Save</strong>.
          </P>
          <P>
            We email that address a confirmation link. The persona shows <strong>Not confirmed yet</strong> until someone clicks it, and nothing is sent from it
            before then; <strong>Resend link</strong> sends another. Once confirmed it reads <strong>Verified</strong>.
          </P>
        </Step>
        <Step title="Create a template">
          <P>
            Open <UiPath parts={['Components', 'Templates', 'New Template']} />. Under <strong>Start from</strong>, pick <strong>Start blank</strong> for the
            drag-and-drop designer, or a starter: <strong>Use Welcome</strong>, <strong>Use Newsletter</strong> or <strong>Use Announcement</strong>{' '}
            (marketing), <strong>Use Receipt</strong> or <strong>Use Password reset</strong> (transactional).
          </P>
          <P>
            Give it a <strong>Name</strong> and a <strong>Subject</strong>, edit the content, and press <strong>Save</strong>. Personalise with variables such
            as <C>{'{{user.first_name}}'}</C> or <C>{'{{sender_persona.first_name}}'}</C>; a missing value prints nothing. Once saved,{' '}
            <strong>Send test email</strong> sends it to you.
          </P>
          <Note severity="warning" title="Marketing templates need an unsubscribe link.">
            Put <C>{'{{unsubscribe_link}}'}</C> in the HTML, for example <C>{'<a href="{{unsubscribe_link}}">Unsubscribe</a>'}</C>. The marketing starters
            already have one; a marketing template without it is not saved.
          </Note>
        </Step>
        <Step title="Add contacts">
          <P>
            Open <UiPath parts={['People', 'Contacts', 'Add One']} />. On <strong>New Contact</strong> enter the <strong>Email</strong>, and if you like the{' '}
            <strong>First name</strong>, <strong>Last name</strong> and <strong>Timezone</strong>, then <strong>Save</strong>. While you are in the sandbox, add{' '}
            <C>{SIMULATOR_SUCCESS_ADDRESS}</C> and your sender persona’s own address.
          </P>
          <P>
            For a list, use <UiPath parts={['People', 'Contacts', 'Upload File']} />: a CSV or Excel file, including exports from other email services. You see
            its columns, the first rows and where each column goes before anything is imported.
          </P>
        </Step>
        <Step title="Send it with the send wizard">
          <P>
            Open <strong>Send wizard</strong> in the navigation and answer one page at a time, pressing <strong>Continue</strong> after each:
          </P>
          <Box component="ol" sx={{ mt: 0, mb: 2, pl: 3, maxWidth: '75ch', '& li': { mb: 0.75 } }}>
            <li>
              <strong>Campaign type</strong>: choose <strong>One-time blast</strong>.
            </li>
            <li>
              <strong>Campaign name</strong>: a name you will recognise in reports.
            </li>
            <li>
              <strong>Sender persona</strong>: the persona from step 2 (or create one on the spot).
            </li>
            <li>
              <strong>Template</strong>: the template from step 3.
            </li>
            <li>
              <strong>Recipients</strong>: under <strong>Send to</strong> choose <strong>Contacts</strong> (or <strong>Segments</strong>, or{' '}
              <strong>Segments and contacts</strong>), then tick the contacts on the next page.
            </li>
            <li>
              <strong>When to send</strong>: <strong>Send now</strong>, or <strong>Schedule</strong> with a date and time in a timezone — or in each contact’s
              own timezone.
            </li>
            <li>
              <strong>Review and launch</strong>: your choices, who is left out and why, the cost, and the email rendered as it will arrive. Press{' '}
              <strong>Launch</strong>.
            </li>
          </Box>
          <P>The success page lists what was created: the campaign, the email blast, and links to the template and the persona.</P>
        </Step>
        <Step title="Watch it go out">
          <P>
            <strong>Insights</strong> shows the sends, opens and clicks, and under <strong>Recent emails</strong> every email exactly as it was sent.{' '}
            <UiPath parts={['Components', 'Email Blasts']} /> lists each blast with its <strong>Sent</strong>, <strong>Deferred</strong>,{' '}
            <strong>Waiting</strong> and <strong>Failed</strong> counts, and who was left out (<strong>Excluded</strong>).
          </P>
        </Step>
      </Steps>
      <Section title="Next">
        <P>
          Send from your own code with the <To to={quickStartPath('send-from-your-app')}>API quick start</To>, or get each send, bounce and unsubscribe pushed
          to your server with <To to={quickStartPath('receive-webhooks')}>webhooks</To>.
        </P>
      </Section>
    </>
  );
}

/** The blast example with shell placeholders (curl) and with the Node.js script's variables. */
const BLAST_FOR_CURL = scheduleBlast({
  blastId: '$(uuidgen | tr A-F a-f)',
  templateId: '$TEMPLATE_ID',
  personaId: '$PERSONA_ID',
  sendAt: '$(date -u +%Y-%m-%dT%H:%M)',
});
const BLAST_FOR_NODE = pretty(scheduleBlast({ blastId: '__ID__', templateId: '__T__', personaId: '__P__', sendAt: '__AT__' }).body, true, '  ')
  .replace("'__ID__'", 'randomUUID()')
  .replace("'__T__'", 'templateId')
  .replace("'__P__'", 'personaId')
  .replace("'__AT__'", 'new Date().toISOString().slice(0, 16)');

/** The whole API quick start as one Node.js script. */
function wholeScript(): string {
  const body = (x: unknown) => pretty(x, true, '');
  return `// quickstart.mjs: run with  MAILWRIGHT_URL=... MAILWRIGHT_API_KEY=... node quickstart.mjs
import { randomUUID } from 'node:crypto';

async function call(method, path, body) {
  const res = await fetch(\`\${process.env.MAILWRIGHT_URL}\${path}\`, {
    method,
    headers: { 'x-api-key': process.env.MAILWRIGHT_API_KEY, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(\`\${method} \${path}: \${res.status} \${answer.errors.join('; ')}\`);
  return answer;
}

const persona = await call('POST', '${CREATE_PERSONA.path}', ${body(CREATE_PERSONA.body)});
const personaId = persona.data[0].id; // confirm the address by the link we email it before anything is sent

console.log(await call('POST', '${SEND_ONE_EMAIL.path}', ${body(SEND_ONE_EMAIL.body)}));

await call('POST', '${UPSERT_CONTACTS.path}', ${body(UPSERT_CONTACTS.body)});

const template = await call('POST', '${SAVE_TEMPLATE.path}', ${body(SAVE_TEMPLATE.body)});
const templateId = template.data[0].id;

const blast = await call('POST', '/api/scheduler/scheduler', ${BLAST_FOR_NODE.replace(/\n {2}/g, '\n')});
console.log('scheduled', blast.data.id, 'for', blast.data.send_at_utc);`;
}

/** Send from your app: key, persona, one email, contacts, template, blast — curl and Node.js. */
function SendFromYourApp() {
  const origin = window.location.origin;
  return (
    <>
      <P>
        Every call is JSON over HTTPS to this site, with your project’s API key in the <C>x-api-key</C> header. The examples use the simulator address{' '}
        <C>{SIMULATOR_SUCCESS_ADDRESS}</C>, so they work while your account is in the sandbox. The Node.js examples need Node.js 18 or later (its built-in{' '}
        <C>fetch</C>) in an <C>.mjs</C> file.
      </P>
      <Steps label="Steps to send from your app">
        <Step title="Get your API key">
          <P>
            In the console, open <UiPath parts={['Account', 'Integrations']} /> (or <strong>API keys</strong> in the menu under your initials, top right). Copy
            the <strong>API key</strong> from the <strong>Direct API</strong> card. It can change anything in your project: keep it on your server, never in a
            web page or an app.
          </P>
          <CodeBlock label="Shell: the variables every example reads">{`export MAILWRIGHT_URL='${origin}'
export MAILWRIGHT_API_KEY='paste-your-api-key-here'`}</CodeBlock>
        </Step>
        <Step title="Create a sender persona">
          <P>The From address must be one of your sender personas. Create one for an address you can read (skip this if you made one in the console):</P>
          <CodeTabs
            what="Create a sender persona"
            samples={[
              { label: 'curl', code: curlCommand(CREATE_PERSONA) },
              { label: 'Node.js', code: nodeCall(CREATE_PERSONA) },
            ]}
          />
          <P>
            The answer lists the saved persona, <C>{'{"data":[{"id":"…","email":"you@example.com",…}],"errors":[]}'}</C>; keep its id as <C>PERSONA_ID</C>. We
            email the address a confirmation link: nothing is sent from the persona until someone clicks it.
          </P>
        </Step>
        <Step title="Send one email">
          <P>
            <C>POST /api/email</C> sends one email now — a receipt, a password reset, a notification. Give the subject with <C>html</C> and/or <C>text</C> (sent
            as you give them), or a saved template’s <C>template_id</C> with <C>variables</C>:
          </P>
          <CodeTabs
            what="Send one email"
            samples={[
              { label: 'curl', code: curlCommand(SEND_ONE_EMAIL) },
              { label: 'Node.js', code: nodeCall(SEND_ONE_EMAIL) },
            ]}
          />
          <P>
            The answer names each recipient’s copy:{' '}
            <C>{'{"id":"…","message_id":"<…@example.com>","stream":"transactional","recipients":[{"email":"…","status":"queued",…}]}'}</C>. <C>to</C>, <C>cc</C>{' '}
            and <C>bcc</C> take an address, <C>Name &lt;address&gt;</C>, or a list: 50 recipients in all, each getting one copy, and a Bcc is never shown to the
            others. Add an <C>Idempotency-Key</C> header (a new UUID per email) and a retried request sends nothing twice. Up to 500 emails go in one call to{' '}
            <C>POST /api/email/batch</C>.
          </P>
          <P>
            Find the email on <strong>Messages</strong> in the console, or with <C>GET /api/messages?tag=shipping</C>: its timeline shows when it was queued,
            the relay’s answer when it was sent, and any bounce, complaint, open or click after.
          </P>
        </Step>
        <Step title="Add contacts">
          <P>
            <C>POST /api/user/users</C> creates contacts, or updates the one with the same id or email; up to 1,000 in a call. <C>timezone</C> is an IANA zone,
            used by blasts sent in each contact’s own time; <C>json</C> holds up to 50 fields of your own, which templates read as <C>{'{{user.json.plan}}'}</C>
            .
          </P>
          <CodeTabs
            what="Add contacts"
            samples={[
              { label: 'curl', code: curlCommand(UPSERT_CONTACTS) },
              { label: 'Node.js', code: nodeCall(UPSERT_CONTACTS) },
            ]}
          />
          <P>
            The answer lists the saved contacts in the order given, each with its <C>id</C>. Nothing is written when one of them is refused.
          </P>
        </Step>
        <Step title="Save a template">
          <CodeTabs
            what="Save a template"
            samples={[
              { label: 'curl', code: curlCommand(SAVE_TEMPLATE) },
              { label: 'Node.js', code: nodeCall(SAVE_TEMPLATE) },
            ]}
          />
          <P>
            Keep <C>data[0].id</C> from the answer as <C>TEMPLATE_ID</C>. A marketing template (<C>TEMPLATE_MARKETING</C>) must contain{' '}
            <C>{'{{unsubscribe_link}}'}</C>; a transactional one (<C>TEMPLATE_TRANSACTIONAL</C>) need not.
          </P>
        </Step>
        <Step title="Schedule a blast">
          <P>
            <C>POST /api/scheduler/scheduler</C> sends a template to segments (<C>to_segment_ids</C>) and contacts (<C>to_user_ids</C>, or <C>to_user_emails</C>
            ) at a time. The <C>id</C> is a new v4 UUID that you make, so a retried request cannot schedule the blast twice. <C>send_at</C> is a wall-clock
            time, <C>YYYY-MM-DDTHH:mm</C>, read in <C>timezone</C>; give <C>{"Contact's local timezone"}</C> to send at that time in each contact’s own zone. A
            time already past sends at once, as here:
          </P>
          <CodeTabs
            what="Schedule a blast"
            samples={[
              { label: 'curl', code: `PERSONA_ID='paste-the-persona-id'\nTEMPLATE_ID='paste-the-template-id'\n${curlCommand(BLAST_FOR_CURL, true)}` },
              {
                label: 'Node.js',
                code: `import { randomUUID } from 'node:crypto';\nconst personaId = 'paste-the-persona-id';\nconst templateId = 'paste-the-template-id';\n\n${nodeCall(BLAST_FOR_CURL, BLAST_FOR_NODE)}`,
              },
            ]}
          />
          <P>
            A saved blast cannot be changed; disable it and schedule another. <UiPath parts={['Components', 'Email Blasts']} /> shows its progress.
          </P>
        </Step>
      </Steps>
      <Section title="All together in Node.js">
        <P>The same calls in one script, each step feeding the next:</P>
        <CodeBlock label="Node.js: quickstart.mjs">{wholeScript()}</CodeBlock>
      </Section>
      <Section title="When a call is refused">
        <P>
          A refused call answers 4xx with every problem at once, each naming its field: <C>{'{"errors":["from: Required field"]}'}</C>. A missing or unknown key
          is a <C>401</C>, an oversized or malformed body a <C>400</C> or <C>415</C>, and too many sign-in attempts a <C>429</C> saying how long to wait. Every
          operation, with its fields and answers, is in the <To to="/docs/api">API reference</To>: sends on the{' '}
          <To to={apiReferencePath('email')}>sending gateway</To>, events on the <To to={apiReferencePath('event')}>events gateway</To>, contacts on the{' '}
          <To to={apiReferencePath('user')}>contacts gateway</To>, blasts on the <To to={apiReferencePath('scheduler')}>email blasts gateway</To>.
        </P>
      </Section>
    </>
  );
}

/** Send over SMTP: a credential, the connection settings, examples for common frameworks, what the answers mean. */
function SendOverSmtp() {
  const host = window.location.hostname;
  const django = `# settings.py
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "${host}"
EMAIL_PORT = 587
EMAIL_USE_TLS = True
EMAIL_HOST_USER = "mw_…"
EMAIL_HOST_PASSWORD = "…"
DEFAULT_FROM_EMAIL = "Shop <orders@shop.example.com>"`;
  const node = `import nodemailer from 'nodemailer';

const smtp = nodemailer.createTransport({
  host: '${host}',
  port: 587,
  requireTLS: true,
  auth: { user: process.env.SMTP_USER, pass: process.env.SMTP_PASSWORD },
});
const info = await smtp.sendMail({
  from: 'Shop <orders@shop.example.com>',
  to: 'ann@example.com',
  subject: 'Your receipt',
  text: 'Thanks for your order.',
  headers: { 'X-Mailwright-Tag': 'receipt' },
});
console.log(info.response); // 250 2.0.0 Ok: queued as <…>`;
  const laravel = `# .env
MAIL_MAILER=smtp
MAIL_HOST=${host}
MAIL_PORT=587
MAIL_ENCRYPTION=tls
MAIL_USERNAME=mw_…
MAIL_PASSWORD=…`;
  return (
    <>
      <P>
        Most software sends email over SMTP: give it Mailwright’s host, a port, and a user name and password of its own, and its mail goes through the same
        pipeline as the rest of your email — signed with your domain’s DKIM key, tracked as its stream says, counted, and shown on <strong>Messages</strong>.
        Your operator turns SMTP on (<C>SUBMISSION_PORT</C>); <UiPath parts={['Account', 'SMTP']} /> shows the ports this install listens on.
      </P>
      <Steps label="Steps to send over SMTP">
        <Step title="Create a credential">
          <P>
            In <UiPath parts={['Account', 'SMTP']} />, press <strong>Create credential</strong>, name it after the application that uses it, and choose its
            stream: <strong>transactional</strong> for mail one person asked for (not tracked; unsubscribes do not stop it), <strong>broadcast</strong> for
            newsletters. Copy the password now: it is shown once. Revoke the credential when the application no longer needs it; it stops working at once.
          </P>
        </Step>
        <Step title="Point your application at it">
          <P>
            Host <C>{host}</C>, port <C>587</C> with STARTTLS (or <C>465</C> with TLS), AUTH PLAIN or LOGIN with the credential. The From address must be one of
            your verified sender personas, or on a verified sending domain.
          </P>
          <CodeTabs
            what="SMTP settings"
            samples={[
              { label: 'Django', code: django },
              { label: 'Node.js', code: node },
              { label: 'Laravel', code: laravel },
            ]}
          />
        </Step>
        <Step title="Tag and file messages">
          <P>
            Optional headers, removed before the email is sent: <C>X-Mailwright-Stream</C> (a stream other than the credential’s), <C>X-Mailwright-Tag</C>{' '}
            (repeat it, or separate tags with commas) and <C>X-Mailwright-Metadata</C> (a JSON object of strings, e.g. <C>{'{"order":"1234"}'}</C>). Tags and
            metadata come back in the message activity.
          </P>
        </Step>
      </Steps>
      <Section title="What the answers mean">
        <P>
          <C>250 … queued as &lt;Message-ID&gt;</C>: taken; every recipient of the envelope (To, Cc and Bcc) gets one copy. <C>535 5.7.8</C>: wrong user name or
          password, or the credential was revoked. <C>538 5.7.11</C>: start TLS before signing in. <C>550 5.7.1</C>: the From is not yours (or, in the sandbox,
          a recipient is not allowed). <C>552 5.3.4</C>: the message is over the size the server announces. <C>554 5.6.0</C>: the message is malformed (no From,
          a header hiding a line break). <C>451</C> or <C>421</C>: try again later. A recipient on your suppression list is accepted and recorded as suppressed,
          not sent.
        </P>
      </Section>
    </>
  );
}

/** Receive webhooks: a receiver, the endpoint, a test event, the signature scheme, payloads, retries. */
function ReceiveWebhooks() {
  const origin = window.location.origin;
  const endpoint = createWebhookEndpoint('https://example.com/hooks/mailwright');
  const test = sendWebhookTest('$ENDPOINT_ID');
  const examplePayload = {
    type: 'email.sent',
    timestamp: '2026-11-29T09:30:12.345Z',
    data: {
      event_id: '6f1c2a9e-0d7b-4c51-9a3e-2b8f4d1e7c60',
      email: SIMULATOR_SUCCESS_ADDRESS,
      contact_id: '3b0e6f52-8a41-4d2c-b7f9-51c0d9a2e4b8',
      blast_id: 'c2f8d4a1-6b3e-4f70-8d95-0a7e1b5c3f26',
      template_id: '9d4b7e21-3c6a-4a8f-b1d0-6e2f8c5a7b93',
      message_id: '<c2f8d4a1.3b0e6f52@example.com>',
      details: {},
    },
  };
  return (
    <>
      <P>
        Mailwright POSTs a JSON message to your endpoint for each event you choose: an email sent, deferred, failed, bounced, complained about, opened or
        clicked; a contact created, updated or unsubscribed; a workflow completed. Each message is signed by the <strong>Standard Webhooks</strong> scheme, so
        your server can tell it came from us.
      </P>
      <Steps label="Steps to receive webhooks">
        <Step title="Run a receiver">
          <P>
            Two files: the signature check, then a small HTTP server that uses it. They need nothing but Node.js. The check reads the exact bytes of the body:
            parse the JSON only after it passes.
          </P>
          <CodeBlock label="Node.js: verify.mjs">{VERIFY_FUNCTION}</CodeBlock>
          <CodeBlock label="Node.js: receiver.mjs">{RECEIVER_SERVER}</CodeBlock>
          <P>
            Your endpoint must be reachable from the internet at an <C>https://</C> (or <C>http://</C>) URL. Private, loopback and link-local addresses such as{' '}
            <C>localhost</C> or <C>10.0.0.5</C> are refused, unless you run Mailwright yourself with <C>WEBHOOK_ALLOW_PRIVATE=on</C>.
          </P>
        </Step>
        <Step title="Add the endpoint">
          <P>
            In the console open <UiPath parts={['Account', 'Webhooks']} />. In <strong>Add an endpoint</strong> enter the <strong>URL</strong>, a{' '}
            <strong>Description (optional)</strong>, tick the <strong>Event types</strong> you want, and press <strong>Add endpoint</strong>.
          </P>
          <P>
            The endpoint’s card shows its <strong>Signing secret (Standard Webhooks)</strong>, <C>whsec_…</C>, this once: copy it into{' '}
            <C>MAILWRIGHT_WEBHOOK_SECRET</C> and restart the receiver. Later only <strong>Reveal</strong> shows it again, and that is noted under{' '}
            <UiPath parts={['Account', 'Notifications']} />. <strong>Rotate secret</strong> replaces it.
          </P>
          <P>
            Or register it over the API with your API key (from <UiPath parts={['Account', 'Integrations']} />
            ); the answer carries the secret as <C>data.secret</C> and the endpoint’s id as <C>data.id</C>:
          </P>
          <CodeBlock label="Shell: the variables the examples read">{`export MAILWRIGHT_URL='${origin}'
export MAILWRIGHT_API_KEY='paste-your-api-key-here'`}</CodeBlock>
          <CodeTabs
            what="Add a webhook endpoint"
            samples={[
              { label: 'curl', code: curlCommand(endpoint) },
              { label: 'Node.js', code: nodeCall(endpoint) },
            ]}
          />
        </Step>
        <Step title="Send a test event">
          <P>
            On the endpoint’s card press <strong>Send test event</strong>, or call the API. Your receiver prints a <C>webhook.test</C> message within seconds,
            and the card’s table of recent messages shows it delivered, with the answer your server gave.
          </P>
          <CodeBlock label="Shell: send a test event">{`ENDPOINT_ID='paste-the-endpoint-id'\n${curlCommand(test)}`}</CodeBlock>
        </Step>
      </Steps>

      <Section title="The signature" id="signature">
        <P>Each request carries three headers, and the body is the message’s JSON exactly as signed:</P>
        <SimpleTable
          label="Webhook headers"
          head={['Header', 'What it holds']}
          rows={[
            [<C key="h">webhook-id</C>, 'The message’s id (msg_…). The same on every retry of the message: use it to drop duplicates.'],
            [<C key="h">webhook-timestamp</C>, 'When this attempt was signed, in seconds since 1970 (UTC).'],
            [
              <C key="h">webhook-signature</C>,
              <span key="v">
                <C>v1,</C> followed by the base64 HMAC-SHA256 signature; there may be several, separated by spaces: accept the request when any <C>v1</C> one
                matches.
              </span>,
            ],
          ]}
        />
        <P>
          The signature is HMAC-SHA256 over <C>{'{webhook-id}.{webhook-timestamp}.{body}'}</C> (the three joined by full stops), keyed with the secret’s bytes:
          the part after <C>whsec_</C>, base64-decoded. Compare in constant time, and refuse a timestamp more than five minutes from your clock, so a recorded
          request cannot be replayed later. <C>verify.mjs</C> above does exactly that.
        </P>
        <P>
          Any Standard Webhooks library does the same; in Node.js, <C>npm install standardwebhooks</C>:
        </P>
        <CodeBlock label="Node.js: with the standardwebhooks library">{`import { Webhook } from 'standardwebhooks';

const wh = new Webhook(process.env.MAILWRIGHT_WEBHOOK_SECRET);
// rawBody: the request body as a string, exactly as received. Throws when the signature or timestamp is wrong.
const message = wh.verify(rawBody, req.headers);`}</CodeBlock>
      </Section>

      <Section title="What you receive" id="payloads">
        <P>
          Every message is <C>{'{ type, timestamp, data }'}</C>. For email events, <C>data</C> names the recipient (<C>email</C>, <C>contact_id</C>), what sent
          it (<C>blast_id</C>, <C>template_id</C>, <C>workflow_id</C>), the email’s <C>message_id</C>, the clicked <C>link</C> for a click, and <C>details</C>.
          Contact events carry the contact’s fields.
        </P>
        <CodeBlock label="JSON: an email.sent message">{pretty(examplePayload)}</CodeBlock>
        <SimpleTable label="Event types" head={['Type', 'When']} rows={WEBHOOK_EVENT_TYPES.map((t) => [<C key="t">{t.type}</C>, t.label])} />
      </Section>

      <Section title="Retries and order" id="retries">
        <P>
          Answer with any 2xx status within 5 seconds. Any other answer, or none, is tried again after 5 seconds, 5 minutes, 30 minutes, 2 hours, 5 hours, and
          then every 10 hours, for up to 3 days. An endpoint that fails every attempt for 3 days is disabled and your admins are told under{' '}
          <UiPath parts={['Account', 'Notifications']} />; <strong>Enable</strong> on its card turns it back on and the waiting messages go out. A contact’s
          messages to an endpoint arrive one at a time, in order.
        </P>
        <P>
          A message can arrive twice (for example when your server answered but the answer was lost): it keeps its <C>webhook-id</C>, so keep the ids you have
          handled and skip repeats. Each card’s table of recent messages opens any message with its payload and last answer, and <strong>Send again</strong>{' '}
          delivers it once more. The endpoint operations are in the <To to={apiReferencePath('webhooks')}>webhooks API reference</To>.
        </P>
      </Section>
    </>
  );
}

/** The settings most installations set: name, default, what it does. */
const SETTINGS: ReadonlyArray<readonly [string, string, string]> = [
  ['PORT', '8080', 'The HTTP port of the console and the API.'],
  ['PUBLIC_URL', 'http://localhost:PORT', 'The address people reach you at: links inside emails and the API endpoints the console shows.'],
  ['DATA_DIR', './data', 'The embedded database and, by default, the stored emails.'],
  ['DATABASE_URL', 'unset, the embedded database', 'A PostgreSQL connection string; any number of processes may share it.'],
  ['SMTP_URL', 'unset, nothing is delivered', 'The relay (or relays) mail goes through, with their pacing.'],
  ['STORAGE_URL', 'DATA_DIR/storage', 'Where stored emails, uploaded files and template images go: a folder or an S3 bucket.'],
  ['WORKERS', 'on', 'off serves HTTP only; run the senders in other processes on the same PostgreSQL.'],
  ['WEBHOOK_ALLOW_PRIVATE', 'off', 'on lets webhook endpoints point at private addresses, such as a receiver beside the server.'],
  ['METRICS_TOKEN', 'unset, this machine only', 'The bearer token GET /metrics requires.'],
  ['TRUST_PROXY', 'unset', 'Which proxies’ X-Forwarded-For to believe; set it behind a load balancer.'],
];

/** Run it yourself: the first command, then the settings that matter in production. */
function RunItYourself() {
  return (
    <>
      <P>
        Mailwright is one Node.js program: the console, the API and the workers that send. It runs on a laptop with an embedded database, and in production on
        PostgreSQL behind a load balancer.
      </P>
      <Steps label="Steps to run Mailwright yourself">
        <Step title="Start it">
          <P>You need Node.js 20.19 or later with npm. In a copy of Mailwright’s source, install and start it:</P>
          <CodeBlock label="Shell: install and start">npm ci && npm start</CodeBlock>
          <P>
            The console, the API and the workers answer on <C>http://localhost:8080</C>. The data lives in an embedded PostgreSQL (PGlite) under <C>./data</C>.
            The server prints its address, database, mail setting and health endpoints, and the demo account’s sign-in: <C>demo@mailwright.test</C> /{' '}
            <C>demo-password-1</C>. The first start builds the console; later starts rebuild it only when it changed.
          </P>
        </Step>
        <Step title="Create your account">
          <P>
            Sign up at <C>http://localhost:8080/signup</C>, or from the command line, which also prints the project’s API key (the <C>x-api-key</C> of every API
            call):
          </P>
          <CodeBlock label="Shell: create an activated account">{`npm run admin -- create-account --company "Acme" --project "main" \\
  --email you@acme.example --password 'long-password-1' --activated`}</CodeBlock>
          <P>
            Without <C>--activated</C> the account starts in the sandbox; <C>npm run admin -- activate --email you@acme.example</C> lets it send to anyone.
            Commands work while the server runs.
          </P>
        </Step>
        <Step title="Connect your SMTP relay">
          <P>
            Mailwright delivers through an SMTP relay you name in <C>SMTP_URL</C>. Without it, emails are rendered and stored but go nowhere, and the log says
            so — right for trying it out.
          </P>
          <CodeBlock label="Shell: start with a relay">{`SMTP_URL='smtp://user:pass@smtp.example.com:587?max_rate=14' npm start`}</CodeBlock>
          <P>
            Use <C>smtps://…:465</C> for implicit TLS. Query parameters pace the relay: <C>max_rate</C> (messages a second), <C>max_connections</C>,{' '}
            <C>daily_quota</C>, and <C>warmup=1</C> for a new relay. Several relays, separated by commas, are used in order of <C>priority=</C> and share mail
            by <C>weight=</C>; a relay that is down is skipped.
          </P>
          <Note title="Confirming sender personas without a relay.">
            With <C>SMTP_URL</C> unset the confirmation email of a new sender persona goes nowhere: the server logs its link instead, or confirm the persona
            with <C>npm run admin -- verify-persona --email news@acme.example</C>.
          </Note>
        </Step>
        <Step title="Choose where the data lives">
          <P>
            <C>DATA_DIR</C> (default <C>./data</C>) holds the embedded database (<C>DATA_DIR/pglite</C>) and, by default, the stored copy of every email. One
            process at a time may open it. For more than one process, or for your own backups and replicas, use PostgreSQL:
          </P>
          <CodeBlock label="Shell: start on PostgreSQL">{`DATABASE_URL='postgres://mailwright:secret@127.0.0.1:5432/mailwright' \\
PUBLIC_URL='https://mail.example.com' \\
SMTP_URL='smtp://user:pass@smtp.example.com:587' \\
npm start`}</CodeBlock>
          <P>
            The server applies its migrations when it starts. <C>STORAGE_URL</C> moves the stored emails, contact files and template images to a folder or an S3
            bucket (<C>s3://bucket/prefix?endpoint=…</C>), which several processes can share.
          </P>
        </Step>
        <Step title="Check that it is healthy">
          <P>
            <C>GET /healthz</C> answers 200 while the process serves HTTP; <C>GET /readyz</C> answers 200 once the database answers and every migration is
            applied (point your load balancer at it); <C>GET /metrics</C> is Prometheus text (with <C>METRICS_TOKEN</C> set, send it as a bearer token).
          </P>
          <CodeBlock label="Shell: readiness">{`curl -sS http://localhost:8080/readyz
# {"ready":true}`}</CodeBlock>
        </Step>
      </Steps>

      <Section title="The settings you will set" id="settings">
        <Box
          component="dl"
          aria-label="Main settings"
          sx={{
            m: 0,
            mb: 2,
            display: 'grid',
            gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'max-content minmax(0, 1fr)' },
            columnGap: 3,
            rowGap: { xs: 0.25, sm: 1.25 },
            maxWidth: '90ch',
            '& dt': { fontWeight: 600, mt: { xs: 1.5, sm: 0 } },
            '& dd': { m: 0 },
          }}
        >
          {SETTINGS.map(([name, byDefault, what]) => (
            <Fragment key={name}>
              <dt>
                <C>{name}</C>
              </dt>
              <dd>
                {what}{' '}
                <Box component="span" sx={{ color: 'text.secondary' }}>
                  Default: {byDefault}.
                </Box>
              </dd>
            </Fragment>
          ))}
        </Box>
        <P>A malformed setting stops the start with one line naming it.</P>
      </Section>

      <Section title="Production with Docker Compose" id="compose">
        <P>
          The Compose file that ships with Mailwright runs HTTP processes behind a load balancer, worker processes, PostgreSQL and an S3-compatible store from
          one image. Put the settings in a <C>.env</C> file beside it, then start two of each:
        </P>
        <CodeBlock label="Shell: Docker Compose">{`cat > .env <<'EOF'
SMTP_URL=smtp://user:pass@smtp.example.com:587?max_rate=14
POSTGRES_PASSWORD=change-me-letters-and-digits-only
S3_SECRET_KEY=change-me-at-least-8-characters
PUBLIC_URL=https://mail.example.com
METRICS_TOKEN=change-me-long-and-random
EOF
docker compose up -d --build --scale http=2 --scale worker=2`}</CodeBlock>
        <P>
          To try it without a relay, set <C>SMTP_URL=smtp://mailpit:1025</C> and add <C>--profile try</C>: every email shows in Mailpit at{' '}
          <C>http://localhost:8025</C>. Operator commands run inside a container:{' '}
          <C>docker compose exec http npm run admin -- activate --email admin@acme.example</C>. The people who run the installation sign in to the back-office
          at <C>/operator</C> (create one with <C>npm run admin -- create-operator</C>).
        </P>
      </Section>
    </>
  );
}

/** The body of each quick start, by slug. */
export const QUICK_START_BODIES: Record<string, ComponentType> = {
  'first-blast-from-the-console': FirstBlastFromTheConsole,
  'send-from-your-app': SendFromYourApp,
  'send-over-smtp': SendOverSmtp,
  'receive-webhooks': ReceiveWebhooks,
  'run-it-yourself': RunItYourself,
};
