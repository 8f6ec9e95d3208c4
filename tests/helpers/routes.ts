/**
 * Every route of the product spec (part 1 §2 "Screens and routes" and part 2 §2), as the browser tests walk them: the
 * public pages (no session) and the console's pages (a session of the demo account). Routes with `{id}` take the id of
 * a record the test created (`ids`).
 */
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';
import { displayToTree, type Display } from '../../src/domain/workflowGraph.ts';
import type { Json } from './json.ts';
import { wallClockUtc } from './time.ts';

/** A gateway caller (tests/helpers/processes.ts apiCaller). */
type Api = (method: string, route: string, body?: unknown) => Promise<Json>;

/** The public pages of spec part 1 §2, the blog's posts included (spec: six posts and the serverless one), and the docs' home and a quick start. */
export const PUBLIC_ROUTES = [
  '/',
  '/pricing',
  '/about',
  '/about/contact-us',
  '/about/contact-us/2',
  '/contact-us',
  '/testimonials',
  '/signup',
  '/signup?plan=Enterprise',
  '/demo-login',
  '/deal-mirror',
  '/waiting-for-architecture',
  '/login',
  '/no-such-page',
  '/blog',
  '/blog/other-esps-guess',
  '/blog/timezone-based-email-delivery',
  '/blog/send-event-based-transactional-or-drip-campaign-emails',
  '/blog/how-to-send-an-email-campaign',
  '/blog/make-integration',
  '/blog/make-integration-api-spec',
  '/blog/api-documentation',
  '/blog/serverless',
  '/privacy',
  '/terms',
  '/security',
  '/status',
  '/docs',
  '/docs/quick-start/send-from-your-app',
];

/** The ids the console's edit routes open. */
export interface RouteIds {
  campaign: string;
  contact: string;
  segment: string;
  persona: string;
  workflow: string;
  template: string;
  blast: string;
}

/** The console's routes of spec part 1 §2 and part 2 §2, with the edit routes opened on `ids`. */
export function consoleRoutes(ids: RouteIds): string[] {
  return [
    '/insights',
    '/insights/issues',
    '/insights/stats',
    '/insights/analysis',
    '/messages',
    '/campaigns',
    '/campaigns/new',
    `/campaigns/edit/${ids.campaign}`,
    '/email-send-wizard',
    '/people',
    '/people/users',
    '/people/users/new',
    `/people/users/edit/${ids.contact}`,
    '/people/users/new/bulk',
    '/people/segments',
    '/people/segments/new/empty',
    '/people/segments/new/bulk/2',
    '/people/segments/new/filter',
    `/people/segments/edit/${ids.segment}`,
    '/people/sender-personas',
    '/people/sender-personas/new',
    `/people/sender-personas/edit/${ids.persona}`,
    '/people/topics',
    '/people/subscribe-forms',
    '/components',
    '/components/workflows',
    '/components/workflows/new',
    `/components/workflows/edit/${ids.workflow}`,
    '/components/templates',
    '/components/templates/new',
    `/components/templates/new/${ids.template}`,
    `/components/templates/edit/${ids.template}`,
    '/components/email-blasts',
    '/components/email-blasts/new',
    `/components/email-blasts/edit/${ids.blast}`,
    '/account',
    '/account/team',
    '/account/api',
    '/account/domains',
    '/account/webhooks',
    '/account/smtp',
    '/account/retention',
    '/account/audience-health',
    '/account/events',
    '/account/notifications',
    '/account/settings',
  ];
}

/**
 * recordsForEditRoutes makes one of each record an edit route opens in the demo project through `api` (its gateways
 * with the project's key; the server's workers must run, a workflow is saved by a job) and returns their ids: the demo's
 * persona, template, simulator contact and segment, a blast a month ahead (nothing is sent), a workflow and a campaign.
 */
export async function recordsForEditRoutes(api: Api): Promise<RouteIds> {
  const persona = (await api('GET', '/api/senderpersonawrapper/sender_personas')).data[0];
  const template = (await api('GET', '/api/template/templates')).data[0];
  const contact = (await api('GET', '/api/user/users')).data.find((c: { email: string }) => c.email === SIMULATOR_SUCCESS_ADDRESS);
  const segment = (await api('GET', '/api/segment/segments')).data[0];
  const blast = crypto.randomUUID();
  // A blast far in the future: it stays scheduled and nothing is sent while the pages are walked.
  await api('POST', '/api/scheduler/scheduler', {
    id: blast,
    name: 'A blast for the phone walk',
    template_id: template.id,
    sender_persona_id: persona.id,
    to_user_ids: [contact.id],
    send_at: wallClockUtc(60 * 24 * 30),
    timezone: 'UTC',
  });
  const workflow = crypto.randomUUID();
  const display: Display = {
    nodes: [
      { id: 'trigger', type: 'event', position: { x: 0, y: 0 }, properties: { eventName: 'phone_signup' } },
      { id: 'pause', type: 'delay', position: { x: 240, y: 0 }, properties: { delayMS: 60_000 } },
    ],
    links: [{ id: 'trigger-pause', from: { nodeId: 'trigger', portId: 'output' }, to: { nodeId: 'pause', portId: 'input' } }],
  };
  const saved = await api('POST', '/api/workflowwrapper/workflows', {
    id: workflow,
    name: 'A flow for the phone walk',
    display,
    tree: displayToTree(display).tree,
  });
  const end = Date.now() + 60_000;
  for (;;) {
    const [entry] = (await api('GET', `/api/joblog/joblog?ids=${saved.data.job_log_entry_id}`)).data;
    if (entry?.ended_at) break;
    if (Date.now() > end) throw new Error('the workflow was not saved in time');
    await new Promise((r) => setTimeout(r, 250));
  }
  const campaign = (
    await api('POST', '/api/campaign/campaigns', {
      campaign: { name: 'A campaign for the phone walk', type: 'scheduled_email_group', scheduled_email_blast_group_ids: [blast] },
    })
  ).campaign;
  return { campaign: campaign.id, contact: contact.id, segment: segment.id, persona: persona.id, workflow, template: template.id, blast };
}
