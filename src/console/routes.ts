/**
 * The console's route catalogue (spec part 1 §2, part 2 §2): which paths need a session, and the navigation tree.
 */

/** One navigation entry: label, path and children (spec part 1 §2 Navigation). */
export interface NavItem {
  label: string;
  path: string;
  children?: NavItem[];
}

/** The navigation tree of spec part 1 §2, shown on the left at ≥1024 px and in the top-bar menu below. */
export const NAVIGATION: NavItem[] = [
  {
    label: 'Insights',
    path: '/insights',
    children: [
      { label: 'Issues', path: '/insights/issues' },
      { label: 'Statistics', path: '/insights/stats' },
    ],
  },
  // Message activity (not in the spec's navigation): every email sent, for "did my user get it?".
  { label: 'Messages', path: '/messages' },
  { label: 'Campaigns', path: '/campaigns' },
  { label: 'Send wizard', path: '/email-send-wizard' },
  {
    label: 'People',
    path: '/people',
    children: [
      {
        label: 'Contacts',
        path: '/people/users',
        children: [
          { label: 'Upload File', path: '/people/users/new/bulk' },
          { label: 'Add One', path: '/people/users/new' },
        ],
      },
      {
        label: 'Segments',
        path: '/people/segments',
        children: [
          { label: 'From File', path: '/people/segments/new/bulk/2' },
          { label: 'From Filters', path: '/people/segments/new/filter' },
          { label: 'Create Empty', path: '/people/segments/new/empty' },
        ],
      },
      {
        label: 'Sender Personas',
        path: '/people/sender-personas',
        children: [{ label: 'Create Persona', path: '/people/sender-personas/new' }],
      },
      // Topics and subscribe forms (not in the spec's navigation, which is silent on them).
      { label: 'Topics', path: '/people/topics' },
      { label: 'Subscribe Forms', path: '/people/subscribe-forms' },
    ],
  },
  {
    label: 'Components',
    path: '/components',
    children: [
      {
        label: 'Email Blasts',
        path: '/components/email-blasts',
        children: [{ label: 'New Email Blast', path: '/components/email-blasts/new' }],
      },
      {
        label: 'Workflows',
        path: '/components/workflows',
        children: [{ label: 'New Workflow', path: '/components/workflows/new' }],
      },
      {
        label: 'Templates',
        path: '/components/templates',
        children: [{ label: 'New Template', path: '/components/templates/new' }],
      },
    ],
  },
  {
    label: 'Account',
    path: '/account',
    children: [
      { label: 'Team', path: '/account/team' },
      { label: 'Integrations', path: '/account/api' },
      { label: 'Domains', path: '/account/domains' },
      { label: 'Webhooks', path: '/account/webhooks' },
      { label: 'SMTP', path: '/account/smtp' },
      { label: 'Data retention', path: '/account/retention' },
      { label: 'Audience health', path: '/account/audience-health' },
      { label: 'Notifications', path: '/account/notifications' },
      { label: 'Events', path: '/account/events' },
      { label: 'Logout', path: '/logout' },
    ],
  },
];

const PROTECTED_PREFIXES = ['/insights', '/messages', '/campaigns', '/email-send-wizard', '/people', '/components', '/account', '/email/', '/sender-wizard'];

/** isProtectedPath is true for the authenticated routes of spec part 1 §2, which show the About page when logged out. */
export function isProtectedPath(pathname: string): boolean {
  return PROTECTED_PREFIXES.some((p) => pathname === p || pathname.startsWith(p.endsWith('/') ? p : `${p}/`));
}
