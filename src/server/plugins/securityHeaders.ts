/**
 * Security headers on every page and API answer, set by @fastify/helmet: a Content-Security-Policy,
 * X-Frame-Options SAMEORIGIN with `frame-ancestors 'self'`, X-Content-Type-Options nosniff, Referrer-Policy
 * same-origin (tokens in /u/ and /t/ paths never leak to the sites links go to; requests to this origin carry the
 * referrer, which is how the tracking endpoints know a load from the console's email viewer and do not count it), Cross-Origin-Opener-Policy, and
 * Strict-Transport-Security when PUBLIC_URL is https.
 *
 * The policy (contentSecurityPolicy) is what the console needs and no more:
 * - scripts only from this origin, Unlayer's designer (editor.unlayer.com, the one optional outside script; the
 *   GrapesJS fallback is bundled) and the configured captcha provider; no inline script anywhere;
 * - no eval: the console's forms validate with validators compiled at build time (generated/forms/), not ajv at
 *   run time;
 * - inline styles (MUI's emotion and the designers write <style> elements at run time);
 * - images, fonts, media and stylesheets from anywhere over http(s): stored emails and template previews are shown in
 *   sandboxed `srcdoc` iframes, which inherit this policy, and a customer's email may load its images and web fonts
 *   (e.g. a Google Fonts stylesheet) from any host;
 * - frames from this origin, Unlayer and the captcha provider; requests (fetch/XHR) to this origin, plus the captcha
 *   provider and the conversion tracking URL when configured.
 * Template images and the open pixel are loaded by mail clients on other sites, so their answers are marked
 * Cross-Origin-Resource-Policy: cross-origin; everything else stays same-origin.
 */
import type { FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';
import type { Config } from '../config.ts';
import { UNLAYER_ORIGIN } from '../../domain/designers.ts';

/** Paths whose answers other sites embed (template images in emails, the open-tracking pixel). */
const EMBEDDED_ELSEWHERE = /^\/(template-images\/|t\/o\/)/;

/** originOf returns a URL's origin (scheme://host[:port]), or undefined for an unset or malformed URL. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * contentSecurityPolicy returns the CSP directives for this configuration (see the module docstring); `https` adds
 * upgrade-insecure-requests. Pure, so the policy can be read and tested apart from the server.
 */
export function contentSecurityPolicy(config: Pick<Config, 'publicUrl' | 'captcha' | 'conversionTrackingUrl'>): Record<string, string[] | null> {
  const captcha = originOf(config.captcha?.scriptUrl);
  const conversion = originOf(config.conversionTrackingUrl);
  const extra = (...origins: Array<string | undefined>) => origins.filter((o): o is string => !!o);
  return {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    objectSrc: ["'none'"],
    frameAncestors: ["'self'"],
    formAction: ["'self'"],
    scriptSrc: ["'self'", UNLAYER_ORIGIN, ...extra(captcha)],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'", 'https:', 'http:'],
    imgSrc: ["'self'", 'data:', 'blob:', 'https:', 'http:'],
    fontSrc: ["'self'", 'data:', 'https:', 'http:'],
    mediaSrc: ["'self'", 'data:', 'blob:', 'https:', 'http:'],
    connectSrc: ["'self'", ...extra(captcha, conversion)],
    frameSrc: ["'self'", 'blob:', 'data:', UNLAYER_ORIGIN, ...extra(captcha)],
    workerSrc: ["'self'", 'blob:'],
    upgradeInsecureRequests: config.publicUrl.startsWith('https:') ? [] : null,
  };
}

/** registerSecurityHeaders sets the headers on every answer of `app` (register it before any route). */
export async function registerSecurityHeaders(app: FastifyInstance, config: Config): Promise<void> {
  const https = config.publicUrl.startsWith('https:');
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(config) },
    referrerPolicy: { policy: 'same-origin' },
    xFrameOptions: { action: 'sameorigin' },
    strictTransportSecurity: https ? { maxAge: 15_552_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', async (req, reply) => {
    if (EMBEDDED_ELSEWHERE.test(req.url)) reply.header('cross-origin-resource-policy', 'cross-origin');
  });
}
