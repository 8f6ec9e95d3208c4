/**
 * Searching within a list read once (spec part 2 §2 Pick lists, §9): for a gateway without a name search (sender
 * personas), a pick list reads the list once per opening and filters it as the user types, instead of reading it again
 * on every keystroke. Pure, so the rule is tested without a browser.
 */

/** One choice of a pick list: the record's id and its label. */
export interface SearchOption {
  id: string;
  label: string;
}

/**
 * searchWithin returns a search over the rows `load` reads: the first call reads them, later calls (and calls made
 * while that read is under way) reuse the same read; a read that fails is tried again by the next call. Each search
 * answers the first `limit` options whose label contains the text, ignoring case.
 */
export function searchWithin<T>(load: () => Promise<T[]>, toOption: (row: T) => SearchOption, limit: number): (text: string) => Promise<SearchOption[]> {
  let read: Promise<SearchOption[]> | undefined;
  return async (text) => {
    if (!read) {
      read = load().then((rows) => rows.map(toOption));
      read.catch(() => {
        read = undefined;
      });
    }
    const needle = text.trim().toLowerCase();
    return (await read).filter((o) => o.label.toLowerCase().includes(needle)).slice(0, limit);
  };
}
