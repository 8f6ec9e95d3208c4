/**
 * The message activity screens' model (openapi/messages.yaml): the list's filters as they live in the page's address
 * (so a filtered list survives opening a message and coming back), the words and colours of statuses, sources and
 * timeline entries, and what the stored-copy pane says when there is no copy. Pure, so it is tested without a browser.
 */
import type { ListRow, OperationQuery, OperationResponse } from '../data/apiTypes';

/** One message of the list. */
export type Message = ListRow<'listMessages'>;
/** One message with its timeline and stored copy. */
export type MessageDetail = OperationResponse<'getMessage'>['data'];
/** One step of a message's timeline. */
export type TimelineEntry = MessageDetail['timeline'][number];
/** The list's filters (listMessages' query without the paging). */
export type MessageFilters = Omit<OperationQuery<'listMessages'>, 'cursor' | 'limit'>;
/** A status the list can be filtered by: the delivery statuses and what happened after. */
export type StatusFilter = NonNullable<MessageFilters['status']>;

/** The filters in the order the form shows them. */
export const FILTER_KEYS = ['recipient', 'subject', 'message_id', 'tag', 'stream', 'status', 'since', 'until'] as const satisfies ReadonlyArray<
  keyof MessageFilters
>;

/** The status filter's choices with their words, in the order a delivery goes. */
export const STATUS_FILTER_LABELS: Record<StatusFilter, string> = {
  queued: 'Queued',
  deferred: 'Deferred (will retry)',
  sending: 'Sending',
  sent: 'Sent',
  failed: 'Failed',
  suppressed: 'Suppressed (not sent)',
  cancelled: 'Cancelled',
  bounced: 'Bounced',
  complained: 'Complained',
  opened: 'Opened',
  clicked: 'Clicked',
};

/** A chip colour of MUI. */
export type ChipColor = 'default' | 'primary' | 'secondary' | 'error' | 'info' | 'success' | 'warning';

/** Where a message's delivery stands, as a chip: its words and colour. */
export const STATUS_CHIP: Record<Message['status'], { label: string; color: ChipColor }> = {
  queued: { label: 'Queued', color: 'info' },
  deferred: { label: 'Deferred', color: 'warning' },
  sending: { label: 'Sending', color: 'info' },
  sent: { label: 'Sent', color: 'success' },
  failed: { label: 'Failed', color: 'error' },
  suppressed: { label: 'Suppressed', color: 'warning' },
  cancelled: { label: 'Cancelled', color: 'default' },
};

/** What made a message, in words. */
export const SOURCE_LABELS: Record<Message['source'], string> = {
  blast: 'Blast',
  workflow: 'Workflow',
  single_send: 'Single send',
  api: 'API',
  smtp: 'SMTP',
};

/** A timeline entry's type in words. */
export const TIMELINE_LABELS: Record<TimelineEntry['type'], string> = {
  queued: 'Queued',
  deferred: 'Deferred',
  failed: 'Failed',
  sent: 'Sent',
  bounced: 'Bounced',
  complained: 'Complained',
  opened: 'Opened',
  clicked: 'Clicked',
  unsubscribed: 'Unsubscribed',
  webhook: 'Webhook',
};

/** The after-delivery flags of a message that are set, in words (opens and clicks are people's). */
export function messageFlags(m: Pick<Message, 'opened' | 'clicked' | 'bounced' | 'complained'>): Array<{ label: string; color: ChipColor }> {
  return [
    ...(m.opened ? [{ label: 'Opened', color: 'success' as const }] : []),
    ...(m.clicked ? [{ label: 'Clicked', color: 'success' as const }] : []),
    ...(m.bounced ? [{ label: 'Bounced', color: 'error' as const }] : []),
    ...(m.complained ? [{ label: 'Complained', color: 'error' as const }] : []),
  ];
}

/** whoDid says whether an open or click was a person's or a machine's (a proxy's prefetch, a link scanner); undefined for other entries. */
export function whoDid(entry: TimelineEntry): 'person' | 'machine' | undefined {
  if (entry.type !== 'opened' && entry.type !== 'clicked') return undefined;
  return entry.machine ? 'machine' : 'person';
}

const STATUS_KEYS = new Set(Object.keys(STATUS_FILTER_LABELS));

/** filtersFromSearch reads the filters from an address's query: known keys with a non-blank value (a status must be one of the list's). */
export function filtersFromSearch(search: URLSearchParams): MessageFilters {
  const filters: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const value = search.get(key)?.trim();
    if (!value || (key === 'status' && !STATUS_KEYS.has(value))) continue;
    filters[key] = value;
  }
  return filters as MessageFilters;
}

/** searchFromFilters writes the filters as an address's query, leaving blank ones out (the inverse of filtersFromSearch). */
export function searchFromFilters(filters: Partial<Record<(typeof FILTER_KEYS)[number], string>>): URLSearchParams {
  const search = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (value) search.set(key, value);
  }
  return search;
}

/** localToIso turns a datetime-local input's value (the browser's zone) into an ISO instant; '' for blank or invalid. */
export function localToIso(value: string): string {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** isoToLocal turns an ISO instant into a datetime-local input's value in the browser's zone (minutes); '' for blank or invalid. */
export function isoToLocal(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** noCopyText says why a message has no stored copy: not sent yet, never sent, or no longer kept. */
export function noCopyText(status: Message['status']): string {
  switch (status) {
    case 'queued':
    case 'deferred':
    case 'sending':
      return 'Not sent yet: the copy is stored when a relay accepts the message.';
    case 'sent':
      return 'The stored copy is no longer available.';
    default:
      return 'Not sent, so no copy was stored.';
  }
}

/** byteSize words a size in bytes, e.g. "812 bytes", "14.2 kB", "1.3 MB". */
export function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
