/**
 * Configuration from the environment (README "Configuration"). Every variable has a default that runs the product on
 * one machine with no other service.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseIpRanges, type IpRanges } from '../domain/engagement.ts';
import os from 'node:os';
import { parseDuration } from './core/sending/deferral.ts';
import { parseRelayUrls, type RelaySetting } from './core/sending/relays.ts';
import { parseWarmupSchedule } from './core/sending/dailyCaps.ts';
import { parseDomainLimits, type ProviderGroup } from './core/sending/providers.ts';
import { checkStorageUrl } from './storage/storage.ts';
import path from 'node:path';

export interface Config {
  /** HTTP port (PORT, default 8080). */
  port: number;
  /** Folder for PGlite and the default storage (DATA_DIR, default ./data). */
  dataDir: string;
  /** The secret of erased addresses' tombstones (ERASURE_KEY); unset: generated into DATA_DIR/erasure.key (core/privacy/key.ts). */
  erasureKey?: string;
  /** Public base URL used in gateway endpoints, tracking and unsubscribe links (PUBLIC_URL, default http://localhost:PORT). */
  publicUrl: string;
  /** PostgreSQL connection string (DATABASE_URL); unset means embedded PGlite in DATA_DIR. */
  databaseUrl?: string;
  /**
   * SMTP relay URL for nodemailer (SMTP_URL, e.g. smtp://user:pass@host:587, without the governor's parameters); unset
   * means the local capture transport.
   */
  smtpUrl?: string;
  /** SMTP_URL's `max_rate`: messages per second to the relay over all sender processes together; undefined = no limit. */
  relayMaxRate?: number;
  /** SMTP_URL's `daily_quota` (messages per UTC day over all processes) and `warmup=1` (core/sending/dailyCaps.ts). */
  relayDailyQuota?: number;
  relayWarmup?: boolean;
  /** SMTP_URL's `max_connections`: concurrent SMTP connections to the relay over all processes (core/sending/connections.ts). */
  relayMaxConnections?: number;
  /** SMTP_URL's `priority` (lower is used first) and `weight` (share among relays of equal priority) of the first relay. */
  relayPriority?: number;
  relayWeight?: number;
  /** SMTP_URL's `return_path=persona` for the first relay: its mail keeps the persona's address as envelope sender. */
  relayReturnPath?: 'persona';
  /** SMTP_URL's `stream=<name>` for the first relay: it carries only that message stream's mail. */
  relayStream?: string;
  /** The relay's name for its pacing row and logs: scheme, host and port of SMTP_URL (no credentials). */
  relayName?: string;
  /** SMTP_URL's further relays, by priority: used when the ones before refuse connections (failover). */
  backupRelays: RelaySetting[];
  /**
   * Storage for sent-email copies, contact files and template images (STORAGE_URL: a folder path, file:// or
   * s3://bucket/prefix?endpoint=…&region=…&force_path_style=…, storage/s3.ts; default DATA_DIR/storage).
   */
  storageUrl: string;
  /** Run the workers in this process (WORKERS=on|off, default on). */
  workers: boolean;
  /** How long a sender's claim on a recipient row lasts before another worker may take it over (SEND_LEASE_MS, default 120000 ms). */
  sendLeaseMs: number;
  /** Sender poll interval when idle (SEND_POLL_MS, default 1000 ms). */
  sendPollMs: number;
  /** Emails in flight per sender (SEND_CONCURRENCY, default 128: rendered ahead while the SMTP pool drains; 32 left the main thread idle, see docs/bench-log.md). */
  sendConcurrency: number;
  /** How long a deferred email is tried again before it fails (DEFER_MAX_AGE, default 72h; ms): the queue lifetime, from when it was due. */
  deferMaxAgeMs: number;
  /** The reputation circuit-breaker (core/sending/reputation.ts): PAUSE_MIN_SENDS (200), PAUSE_BOUNCE_RATE (5 %), PAUSE_COMPLAINT_RATE (0.3 %; fractions). */
  reputation: { minSends: number; bounceRate: number; complaintRate: number };
  /**
   * The share of a sending domain's sends in an hour that receivers may refuse as the sender's fault (blocklists,
   * policy) before a notification is raised (BLOCK_ALERT_RATE, a fraction or percentage; default 2 %; core/feedback/blocks.ts).
   */
  blockAlertRate: number;
  /**
   * Feedback from every relay: the inbound SMTP receiver of bounces and complaint reports
   * (gateways/inbound/receiver.ts) listens on INBOUND_SMTP_PORT (unset: off; in production port 25 is forwarded to it)
   * on INBOUND_SMTP_HOST (default 0.0.0.0), offers STARTTLS with INBOUND_TLS_CERT and INBOUND_TLS_KEY (PEM files),
   * takes messages up to INBOUND_MAX_BYTES (default 10 MB) and INBOUND_RATE_PER_MINUTE messages per client address
   * (default 600). Bounce subdomains' MX records point at INBOUND_MX_HOST (default the PUBLIC_URL host).
   */
  inbound: { port?: number; host: string; mxHost: string; tls?: { cert: string; key: string }; maxBytes: number; ratePerMinute: number };
  /**
   * SMTP submission (gateways/submission/server.ts): applications send through SUBMISSION_PORT (STARTTLS; 587 in
   * production) and SUBMISSION_TLS_PORT (implicit TLS; 465), each off when unset, on SUBMISSION_HOST (default
   * 0.0.0.0), with SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY (PEM files; without them only loopback clients may sign
   * in, and the TLS port cannot start). SUBMISSION_MAX_BYTES (default 10 MB) is announced as SIZE;
   * SUBMISSION_AUTH_FAILURES (default 10) failed sign-ins per client address in 15 minutes, then 421 until they age.
   * SUBMISSION_HOSTNAME is the name applications connect to (default the PUBLIC_URL host).
   */
  submission: {
    port?: number;
    tlsPort?: number;
    host: string;
    hostname: string;
    tls?: { cert: string; key: string };
    maxBytes: number;
    authFailures: number;
  };
  /**
   * The bounce mailbox, for installs that cannot receive SMTP (gateways/inbound/mailbox.ts): BOUNCE_MAILBOX_URL
   * (`imaps://user:password@host:993/INBOX`; `imap://` must upgrade with STARTTLS, except on loopback; user and password
   * URL-encoded; the path is the folder, default INBOX), BOUNCE_MAILBOX_DONE_FOLDER (where read messages are moved,
   * default Processed, created when missing), BOUNCE_MAILBOX_CRON (how often the reader starts, default every
   * minute; each run then waits on IDLE for BOUNCE_MAILBOX_IDLE_S seconds, default 50). Unset: off.
   */
  bounceMailbox?: BounceMailboxSettings;
  /** Soft bounces in a row (on different sends, no delivery between) after which an address is suppressed (SOFT_BOUNCE_LIMIT, default 3). */
  softBounceLimit: number;
  /**
   * The warm-up ramp of a new sending domain (WARMUP_SCHEDULE: emails per UTC day on days 1, 2, …, comma-separated;
   * `off` = null; default core/sending/dailyCaps.ts DEFAULT_WARMUP_SCHEDULE).
   */
  warmupSchedule: number[] | null;
  /** Recipient provider groups and their limits (DOMAIN_LIMITS over the built-in ones; core/sending/providers.ts). */
  providerGroups: ProviderGroup[];
  /**
   * Apple's published Mail Privacy Protection / Private Relay egress ranges (APPLE_PROXY_RANGES_FILE: Apple's
   * egress-ip-ranges.csv, a CIDR in each line's first column); an open from one of them with Apple's generic user
   * agent is a machine open at any time (src/domain/engagement.ts). Empty when unset.
   */
  appleProxyRanges: IpRanges;
  /** The first back-off after a deferral (DEFER_RETRY_MS, default 30000 ms), doubled per attempt up to 30 min. */
  deferRetryMs: number;
  /** Threads that render emails (RENDER_THREADS, default cores − 1, at least 1, at most 4; 0 renders in-process). */
  renderThreads: number;
  /** Upsert statements a contact import keeps in flight at once, one lane of batches per connection (IMPORT_WRITERS, default 2, 1–8). */
  importWriters: number;
  /** Require a valid Amazon SNS signature on SES notifications (SNS_VERIFY=on|off, default on). */
  snsVerify: boolean;
  /**
   * SNS topics whose messages are accepted (SNS_TOPIC_ARNS, comma-separated ARNs; empty accepts any topic). With it
   * set, a validly signed message from someone else's topic is refused even if they learn an integration key.
   */
  snsTopicArns: string[];
  /**
   * The optional captcha provider of the public forms: a reCAPTCHA-v3-style siteverify endpoint
   * (CAPTCHA_VERIFY_URL, posted `secret`, `response`, `remoteip` as a form; answers {success, score?}), its secret
   * (CAPTCHA_SECRET), the site key and script the pages load (CAPTCHA_SITE_KEY, CAPTCHA_SCRIPT_URL) and the lowest
   * accepted score (CAPTCHA_MIN_SCORE, default 0.5). Off unless CAPTCHA_VERIFY_URL and CAPTCHA_SECRET are both set.
   */
  captcha?: { verifyUrl: string; secret: string; siteKey?: string; scriptUrl?: string; minScore: number };
  /** Where the sign-up page posts the conversion event {email} (CONVERSION_TRACKING_URL); unset means off. */
  conversionTrackingUrl?: string;
  /**
   * The sandbox chat assistant (spec part 1 §1, §7): the one internal company that sees it
   * (ASSISTANT_COMPANY, a company name), the provider the server proxies to (ASSISTANT_PROVIDER_URL; its /session and
   * /session/refresh are called) and the bearer token sent to it (ASSISTANT_PROVIDER_KEY).
   */
  assistant: { company?: string; providerUrl?: string; providerKey?: string };
  /** When retention runs (core/privacy/retention.ts; RETENTION_CRON, cron in UTC, default nightly '30 3 * * *'; 'off' never). */
  retentionCron?: string;
  /** When the shared demo account is reset to its known state (DEMO_RESET_CRON, cron in UTC, default hourly '0 * * * *'; 'off' never). */
  demoResetCron?: string;
  /**
   * Failed sign-ins allowed per client address per window (LOGIN_MAX_FAILURES, default 10), per account per window
   * (LOGIN_MAX_FAILURES_PER_ACCOUNT, default 10) and the window (LOGIN_FAILURE_WINDOW_S, default 900 s); counted in the
   * database, so every server process shares them (src/server/core/accounts/loginThrottle.ts).
   */
  loginMaxFailures: number;
  loginMaxFailuresPerAccount: number;
  loginFailureWindowS: number;
  /**
   * Which proxies' X-Forwarded-For is believed for the client address (TRUST_PROXY: unset trusts none; a number of
   * hops, 'true', or comma-separated addresses/CIDRs; Fastify's trustProxy). Behind a load balancer set it, or every
   * visitor shares the balancer's address and its sign-in limit.
   */
  trustProxy?: boolean | string[] | ((address: string, hop: number) => boolean);
  /**
   * Sending domains: the DNS servers their records are checked against (DNS_RESOLVERS, comma-separated
   * `ip` or `ip:port`; empty uses the system's), the SPF record they are told to publish (SPF_RECORD, default
   * 'v=spf1 a mx ~all'; put your relay's include here), and when every domain is checked again (DOMAIN_CHECK_CRON,
   * cron in UTC, default every 10 minutes; 'off' never).
   */
  dnsResolvers: string[];
  /** The From address of the service's own mail, e.g. persona verification (SYSTEM_FROM, default no-reply@ the PUBLIC_URL host). */
  systemFrom: string;
  /**
   * The DKIM key the service's own mail is signed with, for SYSTEM_FROM's domain: the PEM private key
   * read from SYSTEM_DKIM_KEY_FILE and the selector SYSTEM_DKIM_SELECTOR (default mw1), whose public key is published
   * at `<selector>._domainkey.<domain>`. Unset: the service's own mail goes out unsigned.
   */
  systemDkim?: { domainName: string; keySelector: string; privateKey: string };
  spfRecord: string;
  domainCheckCron?: string;
  /** How long the sends reports are cached per project and campaign (REPORT_CACHE_MS, default 15000 ms; 0 never caches). */
  reportCacheMs: number;
  /** How long the workflow engine's claim on a step lasts before another worker takes it over after a crash (WORKFLOW_LEASE_MS, default 60000 ms). */
  workflowLeaseMs: number;
  /** The workflow engine's longest idle sleep (WORKFLOW_POLL_MS, default 1000 ms; it also wakes when a step falls due and on new runs). */
  workflowPollMs: number;
  /** How often the workers fold new report deltas into the merged aggregates (REPORT_COMPACT_MS, default 2000 ms; docs/architecture.md §14). */
  reportCompactMs: number;
  /**
   * The bearer token GET /metrics requires (METRICS_TOKEN; `Authorization: Bearer <token>`). Unset: /metrics answers
   * only requests from this machine (127.0.0.1, ::1, not through a proxy; plugins/metrics.ts).
   */
  metricsToken?: string;
  /**
   * Webhooks (core/webhooks): whether endpoint URLs may point at private, loopback or link-local
   * addresses (WEBHOOK_ALLOW_PRIVATE=on; default off, so a customer cannot reach the service's own network), the
   * time-out of one attempt (WEBHOOK_TIMEOUT_MS, default 5000 ms), the waits between attempts (WEBHOOK_RETRY_SCHEDULE,
   * seconds, comma-separated; the last repeats; default 5,300,1800,7200,18000,36000), how long a message is retried
   * and an endpoint may fail before it is disabled (WEBHOOK_RETRY_FOR, a duration, default 3d), how long a worker's
   * claim on an attempt lasts (WEBHOOK_LEASE_MS, default 30000 ms, at least the time-out + 5 s) and the dispatcher's idle poll (WEBHOOK_POLL_MS,
   * default 500 ms).
   */
  webhooks: { allowPrivate: boolean; timeoutMs: number; retryScheduleS: number[]; retryForMs: number; leaseMs: number; pollMs: number };
  /**
   * The SpamAssassin daemon the pre-send checks ask for a spam score (SPAMD_URL, `spamd://host:port`, port 783 when
   * left out; unset: no spam score). Spoken to over TCP with the spamc protocol (core/templates/spamd.ts).
   */
  spamdUrl?: { host: string; port: number };
}

/** Where the bounce mailbox is and how it is read (Config.bounceMailbox). */
export interface BounceMailboxSettings {
  host: string;
  port: number;
  /** Implicit TLS (imaps); else STARTTLS when offered. */
  secure: boolean;
  user: string;
  password: string;
  folder: string;
  doneFolder: string;
  cron: string;
  idleSeconds: number;
}

/** parseMailboxUrl reads BOUNCE_MAILBOX_URL; throws on another scheme or a missing user or password. */
export function parseMailboxUrl(raw: string): Pick<BounceMailboxSettings, 'host' | 'port' | 'secure' | 'user' | 'password' | 'folder'> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`BOUNCE_MAILBOX_URL must be a URL such as imaps://user:password@imap.example.com:993/INBOX`);
  }
  if (url.protocol !== 'imaps:' && url.protocol !== 'imap:') throw new Error(`BOUNCE_MAILBOX_URL must start with imaps:// or imap://, got ${url.protocol}//`);
  if (!url.username || !url.password) throw new Error('BOUNCE_MAILBOX_URL must name a user and a password (imaps://user:password@host/INBOX)');
  const secure = url.protocol === 'imaps:';
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 993 : 143,
    secure,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    folder: decodeURIComponent(url.pathname.replace(/^\/+/, '')) || 'INBOX',
  };
}

/** loadConfig reads the environment (process.env by default). Throws on a malformed number or duration (DEFER_MAX_AGE), SMTP_URL, BOUNCE_MAILBOX_URL, STORAGE_URL, WARMUP_SCHEDULE or DOMAIN_LIMITS, an unreadable or non-PEM SYSTEM_DKIM_KEY_FILE, or an unreadable or empty APPLE_PROXY_RANGES_FILE. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const num = (name: string, dflt: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
    return n;
  };
  /** rate reads a fraction given as 0.003 or as a percentage such as 0.3%. */
  const rate = (name: string, dflt: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return dflt;
    const n = raw.endsWith('%') ? Number(raw.slice(0, -1)) / 100 : Number(raw);
    if (!Number.isFinite(n) || n <= 0 || n > 1) throw new Error(`${name} must be a rate such as 0.003 or 0.3%, got "${raw}"`);
    return n;
  };
  const port = num('PORT', 8080);
  const systemFrom = env.SYSTEM_FROM?.trim() || `no-reply@${new URL(env.PUBLIC_URL || `http://localhost:${port}`).hostname}`;
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const [relay, ...backupRelays] = env.SMTP_URL ? parseRelayUrls(env.SMTP_URL) : [];
  return {
    port,
    dataDir,
    erasureKey: env.ERASURE_KEY?.trim() || undefined,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    smtpUrl: relay?.url,
    relayMaxRate: relay?.maxRate,
    relayName: relay?.name,
    relayDailyQuota: relay?.dailyQuota,
    relayWarmup: relay?.warmup,
    relayMaxConnections: relay?.maxConnections,
    relayPriority: relay?.priority,
    relayWeight: relay?.weight,
    relayReturnPath: relay?.returnPath,
    relayStream: relay?.stream,
    backupRelays,
    storageUrl: env.STORAGE_URL ? checkStorageUrl(env.STORAGE_URL) : path.join(dataDir, 'storage'),
    workers: !/^(off|false|0|no)$/i.test(env.WORKERS ?? 'on'),
    sendLeaseMs: num('SEND_LEASE_MS', 120_000),
    sendPollMs: num('SEND_POLL_MS', 1000),
    sendConcurrency: Math.max(1, Math.floor(num('SEND_CONCURRENCY', 128))),
    deferMaxAgeMs: env.DEFER_MAX_AGE ? parseDuration('DEFER_MAX_AGE', env.DEFER_MAX_AGE) : 72 * 3_600_000,
    deferRetryMs: Math.max(1, num('DEFER_RETRY_MS', 30_000)),
    warmupSchedule: parseWarmupSchedule(env.WARMUP_SCHEDULE),
    providerGroups: parseDomainLimits(env.DOMAIN_LIMITS),
    appleProxyRanges: env.APPLE_PROXY_RANGES_FILE ? readRanges(env.APPLE_PROXY_RANGES_FILE) : [],
    reputation: { minSends: num('PAUSE_MIN_SENDS', 200), bounceRate: rate('PAUSE_BOUNCE_RATE', 0.05), complaintRate: rate('PAUSE_COMPLAINT_RATE', 0.003) },
    blockAlertRate: rate('BLOCK_ALERT_RATE', 0.02),
    inbound: {
      port: env.INBOUND_SMTP_PORT ? num('INBOUND_SMTP_PORT', 0) : undefined,
      host: env.INBOUND_SMTP_HOST?.trim() || '0.0.0.0',
      mxHost: (env.INBOUND_MX_HOST?.trim() || new URL(env.PUBLIC_URL || `http://localhost:${port}`).hostname).toLowerCase(),
      tls:
        env.INBOUND_TLS_CERT && env.INBOUND_TLS_KEY
          ? { cert: readPem('INBOUND_TLS_CERT', env.INBOUND_TLS_CERT), key: readPem('INBOUND_TLS_KEY', env.INBOUND_TLS_KEY) }
          : undefined,
      maxBytes: Math.max(1024, Math.floor(num('INBOUND_MAX_BYTES', 10 * 1024 * 1024))),
      ratePerMinute: Math.max(1, Math.floor(num('INBOUND_RATE_PER_MINUTE', 600))),
    },
    submission: {
      port: env.SUBMISSION_PORT ? num('SUBMISSION_PORT', 0) : undefined,
      tlsPort: env.SUBMISSION_TLS_PORT ? num('SUBMISSION_TLS_PORT', 0) : undefined,
      host: env.SUBMISSION_HOST?.trim() || '0.0.0.0',
      hostname: (env.SUBMISSION_HOSTNAME?.trim() || new URL(env.PUBLIC_URL || `http://localhost:${port}`).hostname).toLowerCase(),
      tls:
        env.SUBMISSION_TLS_CERT && env.SUBMISSION_TLS_KEY
          ? { cert: readPem('SUBMISSION_TLS_CERT', env.SUBMISSION_TLS_CERT), key: readPem('SUBMISSION_TLS_KEY', env.SUBMISSION_TLS_KEY) }
          : undefined,
      maxBytes: Math.max(1024, Math.floor(num('SUBMISSION_MAX_BYTES', 10 * 1024 * 1024))),
      authFailures: Math.max(1, Math.floor(num('SUBMISSION_AUTH_FAILURES', 10))),
    },
    bounceMailbox: env.BOUNCE_MAILBOX_URL?.trim()
      ? {
          ...parseMailboxUrl(env.BOUNCE_MAILBOX_URL.trim()),
          doneFolder: env.BOUNCE_MAILBOX_DONE_FOLDER?.trim() || 'Processed',
          cron: env.BOUNCE_MAILBOX_CRON?.trim() || '* * * * *',
          idleSeconds: Math.floor(num('BOUNCE_MAILBOX_IDLE_S', 50)),
        }
      : undefined,
    softBounceLimit: Math.max(1, Math.floor(num('SOFT_BOUNCE_LIMIT', 3))),
    renderThreads: Math.floor(num('RENDER_THREADS', Math.max(1, Math.min(4, os.availableParallelism() - 1)))),
    importWriters: Math.max(1, Math.min(8, Math.floor(num('IMPORT_WRITERS', 2)))),
    snsVerify: !/^(off|false|0|no)$/i.test(env.SNS_VERIFY ?? 'on'),
    snsTopicArns: (env.SNS_TOPIC_ARNS ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
    captcha:
      env.CAPTCHA_VERIFY_URL && env.CAPTCHA_SECRET
        ? {
            verifyUrl: env.CAPTCHA_VERIFY_URL,
            secret: env.CAPTCHA_SECRET,
            siteKey: env.CAPTCHA_SITE_KEY || undefined,
            scriptUrl: env.CAPTCHA_SCRIPT_URL || undefined,
            minScore: num('CAPTCHA_MIN_SCORE', 0.5),
          }
        : undefined,
    conversionTrackingUrl: env.CONVERSION_TRACKING_URL || undefined,
    assistant: {
      company: env.ASSISTANT_COMPANY || undefined,
      providerUrl: env.ASSISTANT_PROVIDER_URL?.replace(/\/+$/, '') || undefined,
      providerKey: env.ASSISTANT_PROVIDER_KEY || undefined,
    },
    retentionCron: /^(off|false|0|no)$/i.test(env.RETENTION_CRON ?? '') ? undefined : env.RETENTION_CRON || '30 3 * * *',
    demoResetCron: /^(off|false|0|no)$/i.test(env.DEMO_RESET_CRON ?? '') ? undefined : env.DEMO_RESET_CRON || '0 * * * *',
    loginMaxFailures: Math.max(1, Math.floor(num('LOGIN_MAX_FAILURES', 10))),
    loginMaxFailuresPerAccount: Math.max(1, Math.floor(num('LOGIN_MAX_FAILURES_PER_ACCOUNT', 10))),
    trustProxy: trustProxy(env.TRUST_PROXY),
    loginFailureWindowS: Math.max(1, num('LOGIN_FAILURE_WINDOW_S', 900)),
    systemFrom,
    systemDkim: env.SYSTEM_DKIM_KEY_FILE
      ? {
          domainName: systemFrom.split('@').pop()!.toLowerCase(),
          keySelector: env.SYSTEM_DKIM_SELECTOR?.trim() || 'mw1',
          privateKey: readKey(env.SYSTEM_DKIM_KEY_FILE),
        }
      : undefined,
    dnsResolvers: (env.DNS_RESOLVERS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    spfRecord: env.SPF_RECORD?.trim() || 'v=spf1 a mx ~all',
    domainCheckCron: /^(off|false|0|no)$/i.test(env.DOMAIN_CHECK_CRON ?? '') ? undefined : env.DOMAIN_CHECK_CRON || '*/10 * * * *',
    reportCacheMs: num('REPORT_CACHE_MS', 15_000),
    workflowLeaseMs: Math.max(1000, num('WORKFLOW_LEASE_MS', 60_000)),
    workflowPollMs: Math.max(50, num('WORKFLOW_POLL_MS', 1000)),
    reportCompactMs: Math.max(100, num('REPORT_COMPACT_MS', 2000)),
    metricsToken: env.METRICS_TOKEN?.trim() || undefined,
    webhooks: {
      allowPrivate: /^(on|true|1|yes)$/i.test(env.WEBHOOK_ALLOW_PRIVATE ?? ''),
      timeoutMs: Math.max(100, num('WEBHOOK_TIMEOUT_MS', 5000)),
      retryScheduleS: retrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
      retryForMs: env.WEBHOOK_RETRY_FOR ? parseDuration('WEBHOOK_RETRY_FOR', env.WEBHOOK_RETRY_FOR) : 72 * 3_600_000,
      // A claim outlives its attempt's time-out, so no second worker sends a message while the first still may.
      leaseMs: Math.max(1000, num('WEBHOOK_LEASE_MS', 30_000), Math.max(100, num('WEBHOOK_TIMEOUT_MS', 5000)) + 5000),
      pollMs: Math.max(50, num('WEBHOOK_POLL_MS', 500)),
    },
    spamdUrl: env.SPAMD_URL?.trim() ? parseSpamdUrl(env.SPAMD_URL.trim()) : undefined,
  };
}

/** retrySchedule reads WEBHOOK_RETRY_SCHEDULE (seconds between attempts, comma-separated); throws naming it when malformed. */
function retrySchedule(raw: string | undefined): number[] {
  if (!raw?.trim()) return [5, 300, 1800, 7200, 18_000, 36_000];
  const waits = raw.split(',').map((s) => Number(s.trim()));
  if (waits.some((w) => !Number.isFinite(w) || w < 0)) throw new Error(`WEBHOOK_RETRY_SCHEDULE must be seconds separated by commas, got "${raw}"`);
  return waits;
}

/**
 * trustProxy reads TRUST_PROXY: unset or off → undefined (trust none), 'true'/'on' → true, a number n → the n nearest
 * hops (as proxy-addr counts them), else a list of addresses/CIDRs.
 */
function trustProxy(raw: string | undefined): Config['trustProxy'] {
  const v = raw?.trim();
  if (!v || /^(off|false|no|0)$/i.test(v)) return undefined;
  if (/^(on|true|yes)$/i.test(v)) return true;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_address: string, hop: number) => hop < hops;
  }
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** readRanges reads APPLE_PROXY_RANGES_FILE; throws naming the variable when it is unreadable or holds no range. */
function readRanges(file: string): IpRanges {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`APPLE_PROXY_RANGES_FILE: cannot read ${file} (${(err as Error).message})`);
  }
  const { ranges } = parseIpRanges(text);
  if (!ranges.length) throw new Error(`APPLE_PROXY_RANGES_FILE: ${file} holds no IP range (a CIDR such as 172.224.226.0/27 in each line's first column)`);
  return ranges;
}

/** readKey reads a PEM private key file (SYSTEM_DKIM_KEY_FILE); throws naming the variable when it is unreadable or not a private key. */
/** readPem reads a PEM file a setting names; throws naming the setting when it cannot be read or is not PEM. */
function readPem(name: string, file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${name}: cannot read ${file} (${(err as Error).message})`);
  }
  if (!/-----BEGIN [A-Z ]+-----/.test(pem)) throw new Error(`${name}: ${file} is not a PEM file`);
  return pem;
}

function readKey(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`SYSTEM_DKIM_KEY_FILE: cannot read ${file} (${(err as Error).message})`);
  }
  try {
    createPrivateKey(pem);
  } catch {
    throw new Error(`SYSTEM_DKIM_KEY_FILE: ${file} is not a PEM private key`);
  }
  return pem;
}

/** parseSpamdUrl reads SPAMD_URL (`spamd://host:port`, port 783 by default); throws on any other form. */
export function parseSpamdUrl(raw: string): { host: string; port: number } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`SPAMD_URL must be spamd://host:port, got "${raw}"`);
  }
  if (url.protocol !== 'spamd:' || !url.hostname) throw new Error(`SPAMD_URL must be spamd://host:port, got "${raw}"`);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : 783 };
}
