/** The public site's navigation: the top bar's links and the footer's columns (PublicLayout), as [path, label]. */

/** The top bar's links (on a phone they fold into the Menu). */
export const SITE_LINKS: Array<[string, string]> = [
  ['/pricing', 'Pricing'],
  ['/docs', 'Docs'],
  ['/testimonials', 'Why Mailwright'],
  ['/blog', 'Blog'],
];

/** The footer's columns: a heading and its links. */
export const FOOTER_COLUMNS: Array<{ heading: string; links: Array<[string, string]> }> = [
  {
    heading: 'Product',
    links: [
      ['/#features', 'Features'],
      ['/pricing', 'Pricing'],
      ['/testimonials', 'Why Mailwright'],
      ['/demo-login', 'Try the demo'],
    ],
  },
  {
    heading: 'Developers',
    links: [
      ['/docs', 'Docs'],
      ['/blog/api-documentation', 'API reference'],
      ['/status', 'Status'],
    ],
  },
  {
    heading: 'Company',
    links: [
      ['/about', 'About'],
      ['/blog', 'Blog'],
      ['/contact-us', 'Contact'],
    ],
  },
  {
    heading: 'Legal',
    links: [
      ['/privacy', 'Privacy'],
      ['/terms', 'Terms'],
      ['/security', 'Security'],
    ],
  },
];
