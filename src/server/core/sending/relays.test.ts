/** SMTP_URL parsing: the governor's parameters are read and removed; bad values stop the start, naming the fault. */
import { describe, expect, it } from 'vitest';
import { parseRelayUrl, parseRelayUrls } from './relays.ts';

describe('parseRelayUrl', () => {
  it('reads max_rate, keeps nodemailer’s own parameters and credentials in the URL, and names the relay without them', () => {
    const r = parseRelayUrl('smtp://user:p%40ss@email-smtp.eu-west-1.amazonaws.com:587?max_rate=14&ignore_tls=true');
    expect(r.maxRate).toBe(14);
    expect(r.url).toBe('smtp://user:p%40ss@email-smtp.eu-west-1.amazonaws.com:587?ignore_tls=true');
    expect(r.name).toBe('smtp://email-smtp.eu-west-1.amazonaws.com:587');
  });
  it('reads daily_quota and warmup, and removes them from the URL nodemailer gets', () => {
    const r = parseRelayUrl('smtp://relay.example.com:25?daily_quota=50000&warmup=1&max_rate=14&max_connections=8');
    expect(r).toEqual({
      url: 'smtp://relay.example.com:25',
      name: 'smtp://relay.example.com:25',
      maxRate: 14,
      maxConnections: 8,
      dailyQuota: 50_000,
      warmup: true,
    });
    expect(parseRelayUrl('smtp://relay.example.com:25?warmup=0').warmup).toBeUndefined();
  });
  it('reads stream=, the message stream the relay alone carries, and refuses a name that is no stream name', () => {
    expect(parseRelayUrl('smtp://relay.example.com:25?stream=transactional')).toMatchObject({ url: 'smtp://relay.example.com:25', stream: 'transactional' });
    expect(() => parseRelayUrl('smtp://relay.example.com:25?stream=Bad%20Name')).toThrow(/SMTP_URL: stream must be/);
  });
  it('leaves a URL without governor parameters as it is, with no limit', () => {
    expect(parseRelayUrl('smtp://127.0.0.1:2525')).toEqual({ url: 'smtp://127.0.0.1:2525', name: 'smtp://127.0.0.1:2525', maxRate: undefined });
    expect(parseRelayUrl('smtps://relay.example.com').name).toBe('smtps://relay.example.com:465');
  });
  it('reads return_path=persona (the persona’s address as envelope sender through this relay) and removes it from the URL', () => {
    expect(parseRelayUrl('smtp://smtp.office365.com:587?return_path=persona')).toMatchObject({ url: 'smtp://smtp.office365.com:587', returnPath: 'persona' });
    expect(parseRelayUrl('smtp://relay.example.com:25?return_path=message').returnPath).toBeUndefined();
    expect(parseRelayUrls('smtp://a.example:25,smtp://b.example:25?return_path=persona').map((r) => r.returnPath)).toEqual([undefined, 'persona']);
    expect(() => parseRelayUrl('smtp://relay.example.com:25?return_path=verp')).toThrow(/^SMTP_URL: return_path must be persona/);
  });
  it('refuses what it cannot use, naming SMTP_URL', () => {
    expect(() => parseRelayUrl('relay.example.com:25')).toThrow(/^SMTP_URL must be an smtp/);
    expect(() => parseRelayUrl('http://relay.example.com')).toThrow(/^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL, got http:/);
    expect(() => parseRelayUrl('smtp://a:25?max_rate=fast')).toThrow(/^SMTP_URL: max_rate must be a number/);
    expect(() => parseRelayUrl('smtp://a:25?max_rate=0')).toThrow(/^SMTP_URL: max_rate must be a number/);
    expect(() => parseRelayUrl('smtp://a:25?max_connections=0')).toThrow(/^SMTP_URL: max_connections must be a whole number/);
    expect(() => parseRelayUrl('smtp://a:25?daily_quota=1.5')).toThrow(/^SMTP_URL: daily_quota must be a whole number/);
    expect(() => parseRelayUrl('smtp://a:25?warmup=yes')).toThrow(/^SMTP_URL: warmup must be 1 or 0/);
  });
});

describe('parseRelayUrls', () => {
  it('reads a list in order of priority, the list order where none is given', () => {
    expect(parseRelayUrls('smtp://a:25').map((r) => r.name)).toEqual(['smtp://a:25']);
    expect(parseRelayUrls('smtp://a:25?priority=5, smtp://b:25?priority=1,smtp://c:25?priority=5').map((r) => r.name)).toEqual([
      'smtp://b:25',
      'smtp://a:25',
      'smtp://c:25',
    ]);
    expect(parseRelayUrls('smtp://a:25,smtp://b:25').map((r) => r.name)).toEqual(['smtp://a:25', 'smtp://b:25']);
  });
  it('gives every relay of a list its priority, and reads weight', () => {
    expect(parseRelayUrls('smtp://a:25?weight=3,smtp://b:25').map((r) => [r.name, r.priority, r.weight])).toEqual([
      ['smtp://a:25', 0, 3],
      ['smtp://b:25', 1, undefined],
    ]);
    expect(() => parseRelayUrls('smtp://a:25?weight=0')).toThrow(/^SMTP_URL: weight must be a number > 0, got "0"$/);
  });
  it('names the faulty relay of a list', () => {
    expect(() => parseRelayUrls('smtp://a:25,smtp://b:25?max_rate=-1')).toThrow(/max_rate must be a number .* \(relay 2 of 2\)$/);
    expect(() => parseRelayUrls('smtp://a:25?priority=high')).toThrow(/^SMTP_URL: priority must be a whole number/);
  });
});
