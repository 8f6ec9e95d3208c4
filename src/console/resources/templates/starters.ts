/**
 * The template gallery's starters: real-world emails adapted from MIT-licensed sets (Postmark's
 * transactional templates, Lee Munroe's responsive email; the licences are served beside them under /starters/),
 * their placeholders turned into this product's variables ({{user.first_name}}, {{sender_persona.email}}, …). The
 * marketing ones carry {{unsubscribe_link}} (spec part 2 §5 Template). The HTML is served as static files from
 * public/starters/ and fetched when the gallery opens.
 */

/** One starter: what the new template is prefilled with. */
export interface Starter {
  id: string;
  name: string;
  subject: string;
  type: 'TEMPLATE_MARKETING' | 'TEMPLATE_TRANSACTIONAL';
  /** What it is for, in the gallery. */
  description: string;
  /** The HTML file's URL (public/starters/). */
  url: string;
}

export const STARTERS: Starter[] = [
  {
    id: 'welcome',
    name: 'Welcome',
    subject: 'Welcome, {{user.first_name}}!',
    type: 'TEMPLATE_MARKETING',
    description: 'Greets a new customer with one next step and where to find help.',
    url: '/starters/welcome.html',
  },
  {
    id: 'newsletter',
    name: 'Newsletter',
    subject: 'What is new this month',
    type: 'TEMPLATE_MARKETING',
    description: 'A short, single-column update with one call to action.',
    url: '/starters/newsletter.html',
  },
  {
    id: 'announcement',
    name: 'Announcement',
    subject: 'Something new for you, {{user.first_name}}',
    type: 'TEMPLATE_MARKETING',
    description: 'Launch news: what changed and where to see it.',
    url: '/starters/announcement.html',
  },
  {
    id: 'receipt',
    name: 'Receipt',
    subject: 'Your receipt',
    type: 'TEMPLATE_TRANSACTIONAL',
    description: 'A payment receipt with the amount and a billing link.',
    url: '/starters/receipt.html',
  },
  {
    id: 'password-reset',
    name: 'Password reset',
    subject: 'Reset your password',
    type: 'TEMPLATE_TRANSACTIONAL',
    description: 'A reset link that expires, and what to do if it was not you.',
    url: '/starters/password-reset.html',
  },
];
