/**
 * The pre-send link check (docs/architecture.md §12 "Pre-send checks"): does each link of a template answer? Every
 * hop is requested by hand (HEAD, then GET when HEAD is refused), so each redirect target passes the same guard as
 * the first URL: a host that is or resolves to a private, loopback or link-local address is never connected to
 * (nonPublicHost, the webhooks' rule, and request-filtering-agent at connect time, against DNS rebinding), unless the
 * install allows private addresses for webhooks (WEBHOOK_ALLOW_PRIVATE, which the tests use for their 127.0.0.1
 * servers).
 */
import http from 'node:http';
import https from 'node:https';
import { useAgent } from 'request-filtering-agent';
import { nonPublicHost } from '../webhooks/index.ts';

/** What one link's check found: it answers, or is dead, slow, redirects too often or in a loop, or was not requested. */
export type LinkOutcome =
  | { url: string; kind: 'ok'; status: number }
  | { url: string; kind: 'dead'; status?: number; detail: string }
  | { url: string; kind: 'slow'; detail: string }
  | { url: string; kind: 'redirects'; detail: string }
  | { url: string; kind: 'private'; detail: string }
  | { url: string; kind: 'unchecked'; detail: string };

/** How links are checked: per-request time-out (ms), redirects followed, private addresses allowed, parallel checks, overall bound (ms). */
export interface LinkCheckOptions {
  timeoutMs: number;
  maxRedirects: number;
  allowPrivate: boolean;
  concurrency: number;
  overallMs: number;
}

/** The pre-send check's settings: 5 s per request, at most 5 redirects, 4 links at a time, 30 s in all. */
export const LINK_CHECK_DEFAULTS: Omit<LinkCheckOptions, 'allowPrivate'> = { timeoutMs: 5000, maxRedirects: 5, concurrency: 4, overallMs: 30_000 };

type Answer = { status: number; location?: string } | { error: 'timeout' | 'private' | 'failed' | 'aborted'; detail: string };

/** request sends one HEAD or GET to `url` without reading the body; never throws. */
function request(url: URL, method: 'HEAD' | 'GET', opts: LinkCheckOptions, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (a: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      resolve(a);
    };
    const send = url.protocol === 'https:' ? https.request : http.request;
    const req = send(url, {
      method,
      agent: useAgent(url.toString(), { allowPrivateIPAddress: opts.allowPrivate, keepAlive: false }),
      headers: { 'user-agent': 'Mailwright-LinkCheck/1.0', accept: '*/*' },
      signal,
    });
    const deadline = setTimeout(() => done({ error: 'timeout', detail: `no answer within ${opts.timeoutMs / 1000} s` }), opts.timeoutMs);
    req.on('response', (res) => {
      res.resume();
      done({ status: res.statusCode ?? 0, location: typeof res.headers.location === 'string' ? res.headers.location : undefined });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (signal.aborted) return done({ error: 'aborted', detail: 'the check ran out of time' });
      // request-filtering-agent refuses a name that resolves to a non-public address when it connects.
      if (/private|not allowed/i.test(err.message)) return done({ error: 'private', detail: err.message });
      const reason =
        err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
          ? `the host ${url.hostname} does not resolve`
          : err.code === 'ECONNREFUSED'
            ? 'the connection was refused'
            : err.message;
      done({ error: 'failed', detail: reason });
    });
    req.end();
  });
}

/**
 * checkLink follows `url` hop by hop: each hop's host is checked (nonPublicHost) before any connection, then asked
 * with HEAD, and with GET when HEAD fails or answers 405 or 501. A 2xx is `ok`; a 3xx with Location is followed up to
 * `maxRedirects` times (a repeated URL is a loop); a 4xx or 5xx, a refused connection or an unknown host is `dead`; a
 * request without an answer within `timeoutMs` is `slow`; a private address is `private`, never requested. Never throws.
 */
export async function checkLink(url: string, opts: LinkCheckOptions, signal: AbortSignal = new AbortController().signal): Promise<LinkOutcome> {
  const seen = new Set<string>();
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    return { url, kind: 'dead', detail: 'it is not a valid URL' };
  }
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') return { url, kind: 'dead', detail: `it redirects to a ${current.protocol} URL` };
    seen.add(current.href);
    if (!opts.allowPrivate) {
      const problem = await nonPublicHost(current.hostname.replace(/^\[|\]$/g, ''));
      if (problem?.kind === 'private') {
        return { url, kind: 'private', detail: `${hop ? `it redirects to ${current.href}, ` : ''}${current.hostname} is a ${problem.range} address` };
      }
      if (problem?.kind === 'unresolved') return { url, kind: 'dead', detail: `the host ${current.hostname} does not resolve` };
    }
    if (signal.aborted) return { url, kind: 'unchecked', detail: 'the check ran out of time' };
    let answer = await request(current, 'HEAD', opts, signal);
    if (('status' in answer && (answer.status === 405 || answer.status === 501)) || ('error' in answer && answer.error === 'failed')) {
      answer = await request(current, 'GET', opts, signal);
    }
    if ('error' in answer) {
      if (answer.error === 'timeout') return { url, kind: 'slow', detail: answer.detail };
      if (answer.error === 'private') return { url, kind: 'private', detail: `${current.hostname} resolves to a private address` };
      if (answer.error === 'aborted') return { url, kind: 'unchecked', detail: answer.detail };
      return { url, kind: 'dead', detail: answer.detail };
    }
    if (answer.status >= 300 && answer.status < 400 && answer.location) {
      let next: URL;
      try {
        next = new URL(answer.location, current);
      } catch {
        return { url, kind: 'dead', detail: `it redirects to an invalid URL (${answer.location.slice(0, 200)})` };
      }
      if (seen.has(next.href)) return { url, kind: 'redirects', detail: `it redirects in a loop (back to ${next.href})` };
      if (hop + 1 > opts.maxRedirects) return { url, kind: 'redirects', detail: `it redirects more than ${opts.maxRedirects} times` };
      current = next;
      continue;
    }
    if (answer.status >= 400 || answer.status < 200) return { url, kind: 'dead', status: answer.status, detail: `it answers ${answer.status}` };
    return { url, kind: 'ok', status: answer.status };
  }
}

/**
 * checkLinks checks distinct `urls` with checkLink, `concurrency` at a time; whatever is not done within
 * `overallMs` is cut off and reported `unchecked`. Resolves one outcome per URL, in the order given. Never throws.
 */
export async function checkLinks(urls: string[], opts: LinkCheckOptions): Promise<LinkOutcome[]> {
  const out: LinkOutcome[] = new Array(urls.length);
  const controller = new AbortController();
  const bound = setTimeout(() => controller.abort(), opts.overallMs);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const i = next++;
      out[i] = controller.signal.aborted
        ? { url: urls[i], kind: 'unchecked', detail: 'the check ran out of time' }
        : await checkLink(urls[i], opts, controller.signal);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, urls.length) }, worker));
  } finally {
    clearTimeout(bound);
  }
  return out;
}
