/**
 * The blog's post list (spec part 1 §2 Public pages, /blog): slug, title, date and summary of every post,
 * without their bodies (posts.tsx adds those), so the catalogue can be tested without React. The index shows the six
 * posts of INDEX_POSTS, newest first. Two more posts exist but are not on it (UNLISTED_POSTS): /blog/serverless, which
 * the spec names apart from the index, and the Make API-spec post. The spec names seven slugs for its "index of six
 * posts"; the API-spec post is the one left off because it is the upsell post's companion, linked from that post, from
 * the API documentation post and from the console's Integrations page (/account/api). Listing it is moving its entry
 * from UNLISTED to LISTED.
 */

/** One post's metadata. `date` is the publication day, ISO (YYYY-MM-DD). */
export interface PostMeta {
  slug: string;
  title: string;
  date: string;
  summary: string;
}

/** Where the two embedded API documents are served (public/docs/ and the build's scripts/apiDocs.ts). */
export const MAKE_SPEC_URL = '/docs/make_integration.yml';
export const API_DOC_URL = '/docs/api.yml';

const LISTED = [
  {
    slug: 'api-documentation',
    title: 'Mailwright API documentation',
    date: '2026-09-15',
    summary:
      'The reference for the public API (contacts, templates, sender personas, segments, blasts and events) with a step-by-step tutorial and curl examples.',
  },
  {
    slug: 'make-integration',
    title: 'Automate your email with Make',
    date: '2026-05-19',
    summary: 'Connect Mailwright to your shop, CRM and forms without writing code: new contacts, events and scheduled blasts straight from Make scenarios.',
  },
  {
    slug: 'how-to-send-an-email-campaign',
    title: 'How to send an email campaign (video)',
    date: '2026-02-10',
    summary:
      'A walkthrough from sign-up to a sent campaign: contacts, a segment, a template with an unsubscribe link, a sender persona, a scheduled blast and the reports.',
  },
  {
    slug: 'send-event-based-transactional-or-drip-campaign-emails',
    title: 'Send event-based transactional or drip campaign emails',
    date: '2025-10-07',
    summary: 'Post an event when something happens in your product and let Mailwright send the receipt, the reminder or the whole onboarding sequence.',
  },
  {
    slug: 'timezone-based-email-delivery',
    title: 'Timezone-based email delivery',
    date: '2025-06-24',
    summary: 'Send at 9 am in your zone, in another zone, or at 9 am in each receiver’s own zone, with daylight-saving changes handled for you.',
  },
  {
    slug: 'other-esps-guess',
    title: 'Other ESPs guess what they sent. We keep the email.',
    date: '2025-03-04',
    summary: 'Why Mailwright stores an exact copy of every email it sends, and how that settles “what did the customer actually get?” in seconds.',
  },
] as const satisfies readonly PostMeta[];

const UNLISTED = [
  {
    slug: 'make-integration-api-spec',
    title: 'Make integration: the API spec',
    date: '2026-06-02',
    summary: 'Every call the Mailwright app for Make makes, how it authenticates with your integration key, and what each module sends and receives.',
  },
  {
    slug: 'serverless',
    title: 'Sending email from serverless functions',
    date: '2025-01-21',
    summary: 'Post events from a Lambda, a Cloudflare Worker or any function with one HTTP call, and let Mailwright handle the sending.',
  },
] as const satisfies readonly PostMeta[];

/** Every slug that has a post. */
export type PostSlug = (typeof LISTED)[number]['slug'] | (typeof UNLISTED)[number]['slug'];

const byDateDesc = (a: PostMeta, b: PostMeta) => b.date.localeCompare(a.date);

/** INDEX_POSTS are the posts /blog lists, newest first. */
export const INDEX_POSTS: readonly PostMeta[] = [...LISTED].sort(byDateDesc);

/** UNLISTED_POSTS exist at /blog/<slug> but are not on the index (/blog/serverless). */
export const UNLISTED_POSTS: readonly PostMeta[] = UNLISTED;

/** findPostMeta returns the post with `slug` (listed or not), or undefined. */
export function findPostMeta(slug: string | undefined): PostMeta | undefined {
  return [...INDEX_POSTS, ...UNLISTED_POSTS].find((p) => p.slug === slug);
}

/** formatPostDate writes an ISO day as e.g. "September 15, 2026", the same in every time zone. */
export function formatPostDate(isoDay: string): string {
  return new Date(`${isoDay}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric' });
}
