/**
 * The blog's catalogue (spec part 1 §2 Public pages, /blog): each post's metadata (postMeta.ts) with the
 * component that renders its body. Typed by slug, so a post without a body (or a body without a post) does not
 * compile. /blog/serverless and the Make API-spec post are here too, although the index does not list them (see
 * postMeta.ts).
 */
import type { ComponentType } from 'react';
import { ApiDocumentationPost } from './ApiDocumentationPost';
import { EventEmailPost, HowToSendCampaignPost, MakeIntegrationPost, OtherEspsGuessPost, ServerlessPost, TimezonePost } from './articles';
import { MakeSpecPost } from './MakeSpecPost';
import { findPostMeta, type PostMeta, type PostSlug } from './postMeta';

/** One post: its metadata and the component rendering its body (below the page's h1). */
export interface Post extends PostMeta {
  Body: ComponentType;
}

const BODIES: Record<PostSlug, ComponentType> = {
  'api-documentation': ApiDocumentationPost,
  'make-integration-api-spec': MakeSpecPost,
  'make-integration': MakeIntegrationPost,
  'how-to-send-an-email-campaign': HowToSendCampaignPost,
  'send-event-based-transactional-or-drip-campaign-emails': EventEmailPost,
  'timezone-based-email-delivery': TimezonePost,
  'other-esps-guess': OtherEspsGuessPost,
  // Not on the index (spec part 1 §2: "A serverless post also exists").
  serverless: ServerlessPost,
};

/** findPost returns the post at /blog/<slug>, listed or not, or undefined for an unknown slug. */
export function findPost(slug: string | undefined): Post | undefined {
  const meta = findPostMeta(slug);
  return meta && { ...meta, Body: BODIES[meta.slug as PostSlug] };
}
