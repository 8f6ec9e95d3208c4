/**
 * The requests the quick starts show, as data: each body exactly as the page prints it in curl and Node.js, so the
 * browser test can send the same bodies to the product and see them accepted. Also the webhook signature check the
 * receive-webhooks quick start prints (its source, run by the same test against a real signed message).
 */
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox';

/** An address of your own the examples send from (a sender persona must be an inbox you can read). */
export const EXAMPLE_SENDER = 'you@example.com';

/** One documented call: its method, its path on this site, and its JSON body (none for a GET). */
export interface ExampleCall {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

/** Create the sender persona the emails come from. */
export const CREATE_PERSONA: ExampleCall = {
  method: 'POST',
  path: '/api/senderpersonawrapper/sender_personas',
  body: { sender_personas: [{ email: EXAMPLE_SENDER, first_name: 'Ada', last_name: 'Lovelace' }] },
};

/** Send one email now through the sending API: subject, HTML and text given inline, a tag to find it by. */
export const SEND_ONE_EMAIL: ExampleCall = {
  method: 'POST',
  path: '/api/email',
  body: {
    from: `Ada Lovelace <${EXAMPLE_SENDER}>`,
    to: `Sam Simulator <${SIMULATOR_SUCCESS_ADDRESS}>`,
    subject: 'Your order has shipped',
    html: '<p>Hello Sam,</p><p>Your order is on its way.</p>',
    text: 'Hello Sam,\n\nYour order is on its way.',
    tags: ['shipping'],
  },
};

/** Add or update contacts (matched by id, else by email). */
export const UPSERT_CONTACTS: ExampleCall = {
  method: 'POST',
  path: '/api/user/users',
  body: {
    users: [{ email: SIMULATOR_SUCCESS_ADDRESS, first_name: 'Sam', last_name: 'Simulator', timezone: 'Europe/London', json: { plan: 'trial' } }],
  },
};

/** Save a marketing template: it must carry {{unsubscribe_link}}. */
export const SAVE_TEMPLATE: ExampleCall = {
  method: 'POST',
  path: '/api/template/templates',
  body: {
    templates: [
      {
        name: 'November news',
        subject: 'What is new this month, {{user.first_name}}',
        type: 'TEMPLATE_MARKETING',
        html_body: '<p>Hello {{user.first_name}},</p><p>Here is what is new.</p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p>',
      },
    ],
  },
};

/**
 * scheduleBlast is the blast request for the ids the earlier steps answered: `blastId` a new v4 UUID, the time a
 * wall-clock YYYY-MM-DDTHH:mm read in UTC. Placeholders ("$TEMPLATE_ID") make the printed form.
 */
export function scheduleBlast(ids: { blastId: string; templateId: string; personaId: string; sendAt: string }): ExampleCall {
  return {
    method: 'POST',
    path: '/api/scheduler/scheduler',
    body: {
      id: ids.blastId,
      name: 'November news',
      template_id: ids.templateId,
      sender_persona_id: ids.personaId,
      to_user_emails: [SIMULATOR_SUCCESS_ADDRESS],
      send_at: ids.sendAt,
      timezone: 'UTC',
    },
  };
}

/** The event types the webhook example listens to. */
export const EXAMPLE_EVENT_TYPES = ['email.sent', 'email.bounced', 'email.complained', 'contact.unsubscribed'] as const;

/** createWebhookEndpoint registers an endpoint at `url` for EXAMPLE_EVENT_TYPES. */
export function createWebhookEndpoint(url: string): ExampleCall {
  return { method: 'POST', path: '/api/webhooks/endpoints', body: { url, description: 'Order system', event_types: [...EXAMPLE_EVENT_TYPES] } };
}

/** sendWebhookTest asks for a signed test message (type webhook.test) to endpoint `id`. */
export function sendWebhookTest(id: string): ExampleCall {
  return { method: 'POST', path: `/api/webhooks/endpoints/${id}/test` };
}

/**
 * pretty prints `value` as JSON (`js` false) or as a JavaScript literal (`js` true: bare keys where they are names,
 * single-quoted strings), two spaces an indent, an object or array on one line when it fits in `width` characters.
 */
export function pretty(value: unknown, js = false, indent = '', width = 80): string {
  const str = (s: string) => (js ? `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'` : JSON.stringify(s));
  const key = (k: string) => (js && /^[A-Za-z_$][\w$]*$/.test(k) ? k : str(k));
  if (typeof value === 'string') return str(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = indent + '  ';
  const items = Array.isArray(value)
    ? value.map((v) => pretty(v, js, inner, width))
    : Object.entries(value as Record<string, unknown>).map(([k, v]) => `${key(k)}: ${pretty(v, js, inner, width)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (!items.length) return open + close;
  const flat = Array.isArray(value) ? `[${items.join(', ')}]` : `{ ${items.join(', ')} }`;
  if (!flat.includes('\n') && indent.length + flat.length <= width) return flat;
  return `${open}\n${items.map((i) => inner + i).join(',\n')}\n${indent}${close}`;
}

/** The body as the pages print it: JSON, short objects on one line. */
export function printedBody(call: ExampleCall): string {
  return pretty(call.body);
}

/**
 * curlCommand prints `call` as a curl command for a POSIX shell, against $MAILWRIGHT_URL with $MAILWRIGHT_API_KEY.
 * Bodies go through a quoted here-document, so `$` and quotes inside them are sent as written; `shellVars` are
 * expanded in the body (e.g. "$TEMPLATE_ID") by leaving the here-document unquoted instead.
 */
export function curlCommand(call: ExampleCall, shellVars = false): string {
  const lines = [`curl -sS -X ${call.method} "$MAILWRIGHT_URL${call.path}"`, `  -H "x-api-key: $MAILWRIGHT_API_KEY"`];
  if (call.body === undefined) return lines.join(' \\\n');
  lines.push(`  -H 'Content-Type: application/json'`, `  --data-binary @- <<${shellVars ? 'JSON' : "'JSON'"}`);
  return `${lines.join(' \\\n')}\n${printedBody(call)}\nJSON`;
}

/**
 * nodeCall prints `call` as Node.js 18+ code (global fetch, top-level await in an .mjs file), the answer printed or the
 * refusal thrown. `bodyExpr` replaces the printed body with a JavaScript expression (for values from earlier steps).
 */
export function nodeCall(call: ExampleCall, bodyExpr?: string): string {
  const body = bodyExpr ?? (call.body === undefined ? undefined : pretty(call.body, true, '  '));
  return [
    `const res = await fetch(\`\${process.env.MAILWRIGHT_URL}${call.path}\`, {`,
    `  method: '${call.method}',`,
    `  headers: { 'x-api-key': process.env.MAILWRIGHT_API_KEY${body === undefined ? '' : ", 'content-type': 'application/json'"} },`,
    ...(body === undefined ? [] : [`  body: JSON.stringify(${body}),`]),
    `});`,
    `const answer = await res.json();`,
    `if (!res.ok) throw new Error(\`\${res.status}: \${answer.errors.join('; ')}\`);`,
    `console.log(answer);`,
  ].join('\n');
}

/**
 * The signature check of the receive-webhooks quick start: Standard Webhooks' scheme (HMAC-SHA256 over
 * "<webhook-id>.<webhook-timestamp>.<raw body>" with the secret after whsec_, base64-decoded; the header lists
 * space-separated "v1,<base64>" signatures) with a five-minute window against replays. Printed as is on the page.
 */
export const VERIFY_FUNCTION = `import { createHmac, timingSafeEqual } from 'node:crypto';

// The endpoint's signing secret, as the console shows it: whsec_ followed by base64.
const SECRET = process.env.MAILWRIGHT_WEBHOOK_SECRET;
const KEY = Buffer.from(SECRET.replace(/^whsec_/, ''), 'base64');
const TOLERANCE_SECONDS = 5 * 60;

/** verify returns true when the request's headers sign its raw body with our secret, within five minutes. */
export function verify(headers, rawBody) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', KEY).update(\`\${id}.\${timestamp}.\${rawBody}\`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}`;

/** The receiver around VERIFY_FUNCTION: a plain Node.js HTTP server that checks, de-duplicates and answers 204. */
export const RECEIVER_SERVER = `// receiver.mjs: run with  MAILWRIGHT_WEBHOOK_SECRET=whsec_... node receiver.mjs
import http from 'node:http';
import { verify } from './verify.mjs';

const seen = new Set(); // webhook-ids already handled: keep them in your database in production

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8'); // the exact bytes: never re-serialise before checking
      if (req.method !== 'POST' || !verify(req.headers, rawBody)) {
        res.writeHead(401).end();
        return;
      }
      const id = req.headers['webhook-id'];
      if (!seen.has(id)) {
        seen.add(id);
        const { type, timestamp, data } = JSON.parse(rawBody);
        console.log(timestamp, type, data.email ?? '', data);
      }
      res.writeHead(204).end(); // any 2xx within 5 seconds counts as delivered
    });
  })
  .listen(3000, () => console.log('listening on http://localhost:3000'));`;
