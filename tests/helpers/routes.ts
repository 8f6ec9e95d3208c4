/**
 * Every route of the product spec (part 1 §2 "Screens and routes" and part 2 §2), as the browser tests walk them: the
 * public pages (no session) and the console's pages (a session of the demo account). Routes with `{id}` take the id of
 * a record the test created (`ids`); `/email/{location}` a stored body's location.
 */

/** The public pages of spec part 1 §2, the blog's posts included (spec: six posts and the serverless one). */
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
    '/account/events',
    '/account/notifications',
    '/account/settings',
  ];
}
