/**
 * Each public page's own title and description: the document's <title> and <meta name="description"> (index.html
 * carries the site's defaults). Plain DOM, no library, so the home page's entry bundle stays small.
 */
import { useEffect } from 'react';

/** The site's name, which every title ends with. */
export const SITE_NAME = 'Mailwright';

/** pageTitle is `title` followed by the site's name ("Pricing · Mailwright"); the site's name alone for an empty title. */
export function pageTitle(title: string): string {
  return title ? `${title} · ${SITE_NAME}` : SITE_NAME;
}

/** descriptionTag returns the page's <meta name="description">, adding one to <head> when index.html has none. */
function descriptionTag(): HTMLMetaElement {
  let tag = document.head.querySelector<HTMLMetaElement>('meta[name="description"]');
  if (!tag) {
    tag = document.createElement('meta');
    tag.name = 'description';
    document.head.append(tag);
  }
  return tag;
}

/**
 * usePageMeta sets the document's title to `title` exactly as given (pass pageTitle(...) for the usual form) and its
 * meta description to `description` while the calling page is shown, and puts back what was there when it goes, so a
 * console screen opened after it does not keep a public page's title.
 */
export function usePageMeta(title: string, description: string): void {
  useEffect(() => {
    const tag = descriptionTag();
    const before = { title: document.title, description: tag.content };
    document.title = title;
    tag.content = description;
    return () => {
      document.title = before.title;
      tag.content = before.description;
    };
  }, [title, description]);
}
