/** The message activity screens' model: filters in the address, dates in the browser's zone, and the words shown. */
import { describe, expect, it } from 'vitest';
import { filtersFromSearch, isoToLocal, localToIso, messageFlags, noCopyText, searchFromFilters, whoDid, byteSize } from './messageModel';

describe('the message filters in the address', () => {
  it('reads the known, non-blank filters and drops a status the list does not have', () => {
    const search = new URLSearchParams('recipient=%20ann@example.com%20&subject=&status=nonsense&tag=receipt&page=2&stream=transactional');
    expect(filtersFromSearch(search)).toEqual({ recipient: 'ann@example.com', tag: 'receipt', stream: 'transactional' });
    expect(filtersFromSearch(new URLSearchParams('status=bounced'))).toEqual({ status: 'bounced' });
  });

  it('writes them back in a fixed order without the blank ones, and reads back the same', () => {
    const search = searchFromFilters({ status: 'sent', recipient: 'bo@example.com', subject: ' ', message_id: '<a@b>' });
    expect(search.toString()).toBe('recipient=bo%40example.com&message_id=%3Ca%40b%3E&status=sent');
    expect(filtersFromSearch(search)).toEqual({ recipient: 'bo@example.com', message_id: '<a@b>', status: 'sent' });
  });

  it('turns a datetime-local value into an instant and back, in the zone of the process', () => {
    const iso = localToIso('2026-11-29T09:05');
    expect(iso).toBe(new Date(2026, 10, 29, 9, 5).toISOString());
    expect(isoToLocal(iso)).toBe('2026-11-29T09:05');
    expect(localToIso('')).toBe('');
    expect(localToIso('not a date')).toBe('');
    expect(isoToLocal(undefined)).toBe('');
  });
});

describe('the words of a message', () => {
  it('lists only the flags that are set', () => {
    expect(messageFlags({ opened: true, clicked: false, bounced: true, complained: false }).map((f) => f.label)).toEqual(['Opened', 'Bounced']);
    expect(messageFlags({ opened: false, clicked: false, bounced: false, complained: false })).toEqual([]);
  });

  it('tells a person’s open or click from a machine’s, and says nothing of other entries', () => {
    const at = '2026-11-29T09:05:00.000Z';
    expect(whoDid({ at, type: 'opened', detail: '', machine: true })).toBe('machine');
    expect(whoDid({ at, type: 'clicked', detail: 'https://example.com/' })).toBe('person');
    expect(whoDid({ at, type: 'sent', detail: '250 OK', relay: 'smtp://relay' })).toBeUndefined();
  });

  it('says why there is no stored copy', () => {
    expect(noCopyText('queued')).toMatch(/^Not sent yet/);
    expect(noCopyText('deferred')).toMatch(/^Not sent yet/);
    expect(noCopyText('suppressed')).toMatch(/^Not sent, so/);
    expect(noCopyText('sent')).toMatch(/no longer available/);
  });

  it('words sizes', () => {
    expect(byteSize(812)).toBe('812 bytes');
    expect(byteSize(14_200)).toBe('14.2 kB');
    expect(byteSize(1_300_000)).toBe('1.3 MB');
  });
});
