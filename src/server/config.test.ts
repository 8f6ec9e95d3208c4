/** loadConfig's reading of the deferral settings: defaults, units, and a start refused on a malformed value. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

describe('loadConfig deferral settings', () => {
  it('defaults to a 72-hour queue lifetime and a 30-second first back-off', () => {
    const c = loadConfig({});
    expect(c.deferMaxAgeMs).toBe(72 * 3_600_000);
    expect(c.deferRetryMs).toBe(30_000);
  });
  it('reads DEFER_MAX_AGE with a unit or as seconds, and DEFER_RETRY_MS in ms', () => {
    expect(loadConfig({ DEFER_MAX_AGE: '30m' }).deferMaxAgeMs).toBe(1_800_000);
    expect(loadConfig({ DEFER_MAX_AGE: '90' }).deferMaxAgeMs).toBe(90_000);
    expect(loadConfig({ DEFER_RETRY_MS: '250' }).deferRetryMs).toBe(250);
  });
  it('stops the start on a malformed value, naming the setting', () => {
    expect(() => loadConfig({ DEFER_MAX_AGE: 'three days' })).toThrow(/^DEFER_MAX_AGE must be a duration/);
    expect(() => loadConfig({ DEFER_RETRY_MS: 'soon' })).toThrow(/^DEFER_RETRY_MS must be a non-negative number/);
  });
});

describe('loadConfig governor settings', () => {
  it('reads SMTP_URL’s parameters, WARMUP_SCHEDULE and DOMAIN_LIMITS', () => {
    const c = loadConfig({
      SMTP_URL: 'smtp://a.example:25?max_rate=14&max_connections=4&daily_quota=1000&warmup=1,smtp://b.example:25?priority=0&weight=2',
      WARMUP_SCHEDULE: '10,20',
      DOMAIN_LIMITS: '{"example.org":{"max_rate":5}}',
    });
    expect(c).toMatchObject({ relayName: 'smtp://a.example:25', relayMaxRate: 14, relayMaxConnections: 4, relayDailyQuota: 1000, relayWarmup: true });
    expect(c.backupRelays).toMatchObject([{ name: 'smtp://b.example:25', priority: 0, weight: 2 }]);
    expect(c.warmupSchedule).toEqual([10, 20]);
    expect(c.providerGroups.find((g) => g.name === 'example.org')?.limits).toEqual({ maxRate: 5 });
  });
  it('stops the start on a malformed governor setting, naming it', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://a:25?max_rate=lots' })).toThrow(/^SMTP_URL: max_rate must be a number/);
    expect(() => loadConfig({ WARMUP_SCHEDULE: '50,x' })).toThrow(/^WARMUP_SCHEDULE must be/);
    expect(() => loadConfig({ DOMAIN_LIMITS: '{"a.org":{"max_rate":-1}}' })).toThrow(/^DOMAIN_LIMITS: a.org.max_rate must be a number > 0/);
  });
});

describe('loadConfig feedback settings', () => {
  it('reads the bounce mailbox from BOUNCE_MAILBOX_URL, with its folder, port by scheme and encoded credentials', () => {
    expect(loadConfig({}).bounceMailbox).toBeUndefined();
    expect(loadConfig({ BOUNCE_MAILBOX_URL: 'imaps://bounces%40shop.example:p%2Fss@imap.shop.example/Bounces' }).bounceMailbox).toEqual({
      host: 'imap.shop.example',
      port: 993,
      secure: true,
      user: 'bounces@shop.example',
      password: 'p/ss',
      folder: 'Bounces',
      doneFolder: 'Processed',
      cron: '* * * * *',
      idleSeconds: 50,
    });
    expect(loadConfig({ BOUNCE_MAILBOX_URL: 'imap://u:p@127.0.0.1:1143', BOUNCE_MAILBOX_IDLE_S: '5' }).bounceMailbox).toMatchObject({
      port: 1143,
      secure: false,
      folder: 'INBOX',
      idleSeconds: 5,
    });
    expect(loadConfig({ BLOCK_ALERT_RATE: '5%' }).blockAlertRate).toBe(0.05);
    expect(loadConfig({}).blockAlertRate).toBe(0.02);
  });
  it('stops the start on a bounce mailbox URL it cannot use, naming it', () => {
    expect(() => loadConfig({ BOUNCE_MAILBOX_URL: 'pop3://u:p@host' })).toThrow(/^BOUNCE_MAILBOX_URL must start with imaps:\/\/ or imap:\/\//);
    expect(() => loadConfig({ BOUNCE_MAILBOX_URL: 'imaps://host/INBOX' })).toThrow(/^BOUNCE_MAILBOX_URL must name a user and a password/);
    expect(() => loadConfig({ BOUNCE_MAILBOX_URL: 'not a url' })).toThrow(/^BOUNCE_MAILBOX_URL must be a URL/);
  });
});
