/**
 * What the documentation holds (/docs): its pages in navigation order, the quick starts, and the gateways the API
 * reference shows, each under a customer's name with the group it is listed in. Plain data, so the navigation, the
 * index and the tests read the same list.
 */

/** The name every docs page's title ends with. */
export const DOCS_NAME = 'Mailwright docs';

/** docsTitle is a docs page's document title: "Quick start: send from your app — Mailwright docs". */
export function docsTitle(title: string): string {
  return `${title} — ${DOCS_NAME}`;
}

/** One quick start: its slug under /docs/quick-start/, its title (the page's h1), what it is for, and its meta description. */
export interface QuickStartMeta {
  slug: string;
  title: string;
  summary: string;
  description: string;
  /** Roughly how long it takes. */
  minutes: number;
}

export const QUICK_STARTS: readonly QuickStartMeta[] = [
  {
    slug: 'first-blast-from-the-console',
    title: 'Send a first blast from the console',
    summary: 'Sign up, add a sender persona, a template and contacts, and send with the send wizard. No code.',
    description: 'Sign up for Mailwright, create a sender persona, a template and contacts, and send your first email blast with the send wizard.',
    minutes: 10,
  },
  {
    slug: 'send-from-your-app',
    title: 'Send from your app',
    summary: 'Send one email, find it in the activity, add contacts and schedule a blast over the HTTP API, with curl and Node.js.',
    description: 'Send a transactional email, add contacts and schedule an email blast from your own code with the Mailwright API: curl and Node.js examples.',
    minutes: 10,
  },
  {
    slug: 'send-over-smtp',
    title: 'Send over SMTP',
    summary: 'Point WordPress, Django, Rails, Laravel or any SMTP client at Mailwright with a credential of its own.',
    description:
      'Create an SMTP credential in Mailwright and send transactional email from any application over SMTP: host, ports, STARTTLS, AUTH and examples.',
    minutes: 5,
  },
  {
    slug: 'receive-webhooks',
    title: 'Receive webhooks',
    summary: 'Get sends, bounces, complaints and unsubscribes POSTed to your server, and check each signature.',
    description: 'Register a webhook endpoint with Mailwright, receive signed email and contact events, and verify the Standard Webhooks signature in Node.js.',
    minutes: 15,
  },
  {
    slug: 'run-it-yourself',
    title: 'Run it yourself',
    summary: 'Start Mailwright on your own machine or servers, with its embedded database or PostgreSQL and your SMTP relay.',
    description: 'Run Mailwright on your own machine: one command to start, then DATA_DIR, DATABASE_URL, SMTP_URL and the other settings for production.',
    minutes: 15,
  },
];

/** quickStartPath is the page of the quick start `slug`. */
export function quickStartPath(slug: string): string {
  return `/docs/quick-start/${slug}`;
}

/** findQuickStart returns the quick start with this slug, or undefined. */
export function findQuickStart(slug: string | undefined): QuickStartMeta | undefined {
  return QUICK_STARTS.find((q) => q.slug === slug);
}

/** How a gateway's calls are authenticated. */
export type GatewayAuth = 'api-key' | 'none' | 'operator';

/** One gateway as the API reference lists it. */
export interface GatewayMeta {
  /** The service name: mounted at /api/<service>, its document at /openapi/<service>.json. */
  service: string;
  /** Its name for customers. */
  name: string;
  /** What it is for, one sentence. */
  summary: string;
  auth: GatewayAuth;
}

/** A group of gateways in the API reference's list. */
export interface GatewayGroup {
  title: string;
  gateways: readonly GatewayMeta[];
}

export const GATEWAY_GROUPS: readonly GatewayGroup[] = [
  {
    title: 'Sending',
    gateways: [
      {
        service: 'email',
        name: 'Sending API and SMTP',
        summary: 'Send a message or a batch of 500 with an idempotency key; message streams; SMTP credentials for your applications.',
        auth: 'api-key',
      },
      {
        service: 'messages',
        name: 'Message activity',
        summary: 'Find any email by recipient, subject, Message-ID or tag, and read its timeline and the copy sent.',
        auth: 'api-key',
      },
      {
        service: 'event',
        name: 'Events and single sends',
        summary: 'Send one email now, post your own events, read events, manage the suppression list and bounce feedback.',
        auth: 'api-key',
      },
      {
        service: 'scheduler',
        name: 'Email blasts',
        summary: 'Schedule one-time blasts (A/B splits too), preview their audience and cost, disable them.',
        auth: 'api-key',
      },
      { service: 'template', name: 'Templates', summary: 'Save and list email templates; upload the images they show.', auth: 'api-key' },
      {
        service: 'senderpersonawrapper',
        name: 'Sender personas',
        summary: 'The names and addresses your emails come from, and their verification.',
        auth: 'api-key',
      },
      { service: 'domains', name: 'Sending domains', summary: 'Register a domain, get its DKIM, SPF and DMARC records and their status.', auth: 'api-key' },
    ],
  },
  {
    title: 'Audience',
    gateways: [
      { service: 'user', name: 'Contacts', summary: 'Create, update, search and archive contacts; upload a file of contacts.', auth: 'api-key' },
      { service: 'segment', name: 'Segments', summary: 'Create, rename and list segments; add and remove members; preview filters.', auth: 'api-key' },
      {
        service: 'segmentwrapper',
        name: 'Segment jobs',
        summary: 'Segments made from a file or from filters, and a segment sent into a workflow, as background jobs.',
        auth: 'api-key',
      },
      {
        service: 'subscriptions',
        name: 'Topics and subscribe forms',
        summary: 'Subscription topics, hosted subscribe forms with double opt-in, consents.',
        auth: 'api-key',
      },
    ],
  },
  {
    title: 'Automation',
    gateways: [
      {
        service: 'workflowwrapper',
        name: 'Workflows',
        summary: 'Save, list, disable and archive workflows; each contact’s runs through them.',
        auth: 'api-key',
      },
      { service: 'workflow', name: 'Workflow checks', summary: 'Check a workflow’s graph before saving it.', auth: 'api-key' },
      { service: 'campaign', name: 'Campaigns', summary: 'Group blasts, workflows and templates into campaigns and read their metrics.', auth: 'api-key' },
    ],
  },
  {
    title: 'Results',
    gateways: [
      { service: 'reporting', name: 'Reports', summary: 'Sends, opens, clicks, bounces and the other figures Insights shows.', auth: 'api-key' },
      { service: 'webhooks', name: 'Webhooks', summary: 'Endpoints that receive signed events, their secrets and their delivery log.', auth: 'api-key' },
      { service: 'joblog', name: 'Notifications', summary: 'Background jobs and their outcome, and the progress of a contact import.', auth: 'api-key' },
    ],
  },
  {
    title: 'Account',
    gateways: [
      { service: 'companyauthwrapper', name: 'Team and account', summary: 'Your team’s admins, the sandbox checklist, activation requests.', auth: 'api-key' },
      { service: 'login', name: 'Sign-in', summary: 'Sign in with a password, or to the shared demo account.', auth: 'none' },
      { service: 'signup', name: 'Sign-up', summary: 'Create a company, its first project and its first admin.', auth: 'none' },
      { service: 'contact_us', name: 'Contact form', summary: 'Send a message to the people who run the service.', auth: 'none' },
    ],
  },
  {
    title: 'Operators',
    gateways: [
      {
        service: 'operator',
        name: 'Operator back-office',
        summary: 'For those who run a Mailwright installation: projects, activation, suspension, audit log.',
        auth: 'operator',
      },
    ],
  },
];

/** Every gateway, in the order they are listed. */
export const GATEWAYS: readonly GatewayMeta[] = GATEWAY_GROUPS.flatMap((g) => g.gateways);

/** findGateway returns the gateway with this service name, or undefined. */
export function findGateway(service: string | undefined): GatewayMeta | undefined {
  return GATEWAYS.find((g) => g.service === service);
}

/** apiDocumentUrl is where the server serves a gateway's OpenAPI document (read-only JSON). */
export function apiDocumentUrl(service: string): string {
  return `/openapi/${service}.json`;
}

/** apiReferencePath is the API reference page of a gateway. */
export function apiReferencePath(service: string): string {
  return `/docs/api/${service}`;
}

/** One entry of the docs' navigation: a page, or a titled group of pages. */
export interface DocsNavLink {
  to: string;
  label: string;
}
export interface DocsNavGroup {
  title: string;
  links: readonly DocsNavLink[];
}

/** The navigation between the docs' pages, in order. */
export const DOCS_NAV: readonly DocsNavGroup[] = [
  { title: 'Start here', links: [{ to: '/docs', label: 'Overview' }] },
  { title: 'Quick starts', links: QUICK_STARTS.map((q) => ({ to: quickStartPath(q.slug), label: q.title })) },
  {
    title: 'Reference',
    links: [
      { to: '/docs/api', label: 'API reference' },
      { to: '/docs/changelog', label: 'Changelog' },
    ],
  },
];
