/**
 * The API documentation post (spec part 1 §2 "The API documentation post embeds an OpenAPI document served from
 * /docs/api.yml and has a show/hide tutorial"; §7 "Documented public API", whose guide states a template must contain
 * an unsubscribe link): an overview, a button that shows or hides a step-by-step tutorial with curl
 * examples, and the reference rendered by swagger-ui from the document bundled at build time (scripts/apiDocs.ts).
 */
import { useId, useState } from 'react';
import { Alert, Box, Button } from '@mui/material';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox';
import { ApiSpec } from './ApiSpec';
import { C, Code, P, Section, To } from './parts';
import { API_DOC_URL } from './postMeta';

/** curl is a curl command posting the JSON `body` (single-quoted for a POSIX shell) to `$MAILWRIGHT/<path>`. */
function curl(path: string, body: string, extraHeaders: string[] = []): string {
  return [
    `curl -X POST "$MAILWRIGHT/${path}"`,
    `  -H 'Content-Type: application/json'`,
    `  -H "x-api-key: $MAILWRIGHT_API_KEY"`,
    ...extraHeaders.map((h) => `  -H '${h}'`),
    `  -d '${body}'`,
  ].join(' \\\n');
}

/** A send time two days from now (YYYY-MM-DDT09:00), so the example blast is in the future whenever it is read. */
function exampleSendAt(): string {
  return `${new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)}T09:00`;
}

/** Tutorial is the step-by-step guide: key, contacts, template, sender persona, segment, blast, events. */
function Tutorial() {
  const origin = window.location.origin;
  return (
    <>
      <Section title="1. Get your API key" level={3}>
        <P>
          Log in and open <To to="/account/settings">Settings</To>. It shows your events endpoint, your API key, the headers to send and a sample event. Every
          call below sends the key in the <C>x-api-key</C> header. Keep it on your server: it can change anything in your project. Set two shell variables for
          the examples:
        </P>
        <Code label="Shell variables for the examples">{`export MAILWRIGHT='${origin}/api'
export MAILWRIGHT_API_KEY='paste-your-api-key-here'`}</Code>
        <P>
          A new account starts in the sandbox, where emails go only to the simulator address <C>{SIMULATOR_SUCCESS_ADDRESS}</C> and to your own sender personas,
          so the examples use that address.
        </P>
      </Section>
      <Section title="2. Add contacts" level={3}>
        <P>
          <C>POST /user/users</C> creates contacts, or updates those with the same id or email; up to 1,000 per call. The time zone is used by blasts sent in
          each contact’s own zone, and <C>json</C> holds up to 50 fields of your own.
        </P>
        <Code label="Adding a contact with curl">
          {curl(
            'user/users',
            `{"users":[{"email":"${SIMULATOR_SUCCESS_ADDRESS}","first_name":"Ada","last_name":"Lovelace","timezone":"Europe/London","json":{"plan":"trial"}}]}`,
          )}
        </Code>
        <P>
          The answer lists the saved contacts, <C>{'{"data":[{"id":"…","email":"…",…}]}'}</C>. Keep the ids you need later, for example <C>CONTACT_ID=…</C>.
        </P>
      </Section>
      <Section title="3. Create a template" level={3}>
        <Alert severity="info" sx={{ mb: 2 }}>
          A template must contain an unsubscribe link: put <C>{'{{unsubscribe_link}}'}</C> in the HTML body, for example{' '}
          <C>{'<a href="{{unsubscribe_link}}">Unsubscribe</a>'}</C>. A marketing template without it is refused.
        </Alert>
        <P>
          <C>POST /template/templates</C> saves templates. Personalise them with <C>{'{{user.first_name}}'}</C>, <C>{'{{user.json.plan}}'}</C> or{' '}
          <C>{'{{sender_persona.first_name}}'}</C>; a missing value renders blank.
        </P>
        <Code label="Creating a template with curl">
          {curl(
            'template/templates',
            `{"templates":[{"name":"Welcome","subject":"Welcome, {{user.first_name}}","type":"TEMPLATE_MARKETING","html_body":"<p>Hello {{user.first_name}},</p><p>Thanks for joining.</p><p><a href=\\"{{unsubscribe_link}}\\">Unsubscribe</a></p>"}]}`,
          )}
        </Code>
        <P>
          Keep the template’s id from the answer: <C>TEMPLATE_ID=…</C>.
        </P>
      </Section>
      <Section title="4. Create a sender persona" level={3}>
        <P>
          A sender persona is the name and address in the From line. <C>POST /senderpersonawrapper/sender_personas</C> saves one:
        </P>
        <Code label="Creating a sender persona with curl">
          {curl('senderpersonawrapper/sender_personas', '{"sender_personas":[{"email":"news@example.com","first_name":"Grace","last_name":"Hopper"}]}')}
        </Code>
        <P>
          Keep its id: <C>PERSONA_ID=…</C>.
        </P>
      </Section>
      <Section title="5. Group contacts in a segment" level={3}>
        <P>
          <C>POST /segment/segments</C> creates a segment from contact ids. You can also send a blast straight to contacts, so this step is optional.
        </P>
        <Code label="Creating a segment with curl">{`curl -X POST "$MAILWRIGHT/segment/segments" \\
  -H 'Content-Type: application/json' \\
  -H "x-api-key: $MAILWRIGHT_API_KEY" \\
  --data-binary @- <<EOF
{"segments":[{"name":"Trial users","user_ids":["$CONTACT_ID"]}]}
EOF`}</Code>
        <P>
          Keep its id, <C>SEGMENT_ID=…</C>. Add contacts to it later with <C>{'POST /segment/segments/{id}/users'}</C>; contacts already in the segment stay
          once:
        </P>
        <Code label="Adding contacts to a segment with curl">{`curl -X POST "$MAILWRIGHT/segment/segments/$SEGMENT_ID/users" \\
  -H 'Content-Type: application/json' \\
  -H "x-api-key: $MAILWRIGHT_API_KEY" \\
  --data-binary @- <<EOF
{"user_ids":["$CONTACT_ID"]}
EOF`}</Code>
      </Section>
      <Section title="6. Schedule a blast" level={3}>
        <P>
          <C>POST /scheduler/scheduler</C> schedules an email blast: a template, a sender persona, the audience and a send time. The id is a new v4 UUID you
          generate (<C>uuidgen</C> makes one); a saved blast cannot be changed. The send time has no offset and is read in <C>timezone</C>, here each contact’s
          own zone.
        </P>
        <Code label="Scheduling a blast with curl">{`curl -X POST "$MAILWRIGHT/scheduler/scheduler" \\
  -H 'Content-Type: application/json' \\
  -H "x-api-key: $MAILWRIGHT_API_KEY" \\
  --data-binary @- <<EOF
{"id":"$(uuidgen | tr A-F a-f)","name":"Welcome blast","template_id":"$TEMPLATE_ID",
 "sender_persona_id":"$PERSONA_ID","to_segment_ids":["$SEGMENT_ID"],
 "send_at":"${exampleSendAt()}","timezone":"contacts local timezone"}
EOF`}</Code>
      </Section>
      <Section title="7. Post events" level={3}>
        <P>
          Events start event-triggered campaigns and drip workflows and appear on the Events screen. <C>POST /event/events</C> takes up to 1,000 at a time; good
          ones are stored even if others fail, and the answer lists the failed ones by position. An <C>Idempotency-Key</C> makes a retry safe.
        </P>
        <Code label="Posting an event with curl">
          {curl(
            'event/events',
            `{"events":[{"name":"order_completed","email":"${SIMULATOR_SUCCESS_ADDRESS}","metric1":1,"metric2":49.9,"json":{"order_id":"A-1001"}}]}`,
            ['Idempotency-Key: order-A-1001'],
          )}
        </Code>
        <P>
          The answer is <C>{'{"stored":1,"ids":["…"],"failed":[],"errors":[]}'}</C>. Then watch the results on Insights, where every sent email can be opened
          exactly as it was sent.
        </P>
      </Section>
    </>
  );
}

/** ApiDocumentationPost introduces the public API, offers the tutorial, and embeds the reference. */
export function ApiDocumentationPost() {
  const [open, setOpen] = useState(false);
  const tutorialId = useId();
  return (
    <>
      <P>
        The Mailwright API does from your code what the console does by hand: add contacts, save templates, sender personas and segments, schedule email blasts,
        and post the events that start event-triggered campaigns and drip workflows.
      </P>
      <Section title="Before you start">
        <P>
          Every call is a JSON <C>POST</C> with your project’s API key in the <C>x-api-key</C> header; the key is on Account →{' '}
          <To to="/account/api">Integrations</To> in the console. Each resource has its own gateway at <C>/api/&lt;service&gt;</C> on this site: contacts on{' '}
          <C>/api/user</C>, templates on <C>/api/template</C>, sender personas on <C>/api/senderpersonawrapper</C>, segments on <C>/api/segment</C>, blasts on{' '}
          <C>/api/scheduler</C> and events on <C>/api/event</C>. A refused call answers 4xx with <C>{'{"errors": ["field: message"]}'}</C>, and a missing or
          unknown key is a 401.
        </P>
        <P>
          A template must contain an unsubscribe link, <C>{'{{unsubscribe_link}}'}</C>: the API refuses a marketing template without one.
        </P>
      </Section>
      <Section title="Tutorial">
        <P>Seven steps from an API key to a scheduled blast and your first event, with a curl command for each.</P>
        <Button variant="outlined" aria-expanded={open} aria-controls={tutorialId} onClick={() => setOpen((o) => !o)}>
          {open ? 'Hide the tutorial' : 'Show the tutorial'}
        </Button>
        <Box id={tutorialId} hidden={!open} sx={{ mt: 1 }}>
          {open && <Tutorial />}
        </Box>
      </Section>
      <ApiSpec url={API_DOC_URL} title="Reference" />
    </>
  );
}
