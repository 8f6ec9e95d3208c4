/**
 * Security headers on every page and API answer: the console's HTML, gateway answers (2xx and 4xx),
 * the public unsubscribe page and static files all carry a Content-Security-Policy, frame-ancestors and
 * X-Frame-Options, X-Content-Type-Options and Referrer-Policy; template images are embeddable from other sites
 * (Cross-Origin-Resource-Policy: cross-origin), everything else same-origin; HSTS only when PUBLIC_URL is https.
 * That the policy lets the console, both designers and the offline fallback work is checked in a real browser by
 * every browser test (tests/e2e/setup.ts).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { buildApp } from '../../src/server/app.ts';
import { contentSecurityPolicy } from '../../src/server/plugins/securityHeaders.ts';

let h: Harness;
let t: Tenant;
let site: FastifyInstance;
beforeAll(async () => {
  h = await startHarness();
  t = await h.tenant();
  const consoleDir = await mkdtemp(path.join(os.tmpdir(), 'mw-console-'));
  await writeFile(path.join(consoleDir, 'index.html'), '<!doctype html><title>Mailwright</title>');
  site = await buildApp(h.runtime.ctx, { logLevel: 'silent', consoleDir });
});
afterAll(async () => {
  await site?.close();
  await h?.close();
});

describe(`security headers (${API_DB})`, () => {
  it('are on the console, gateway answers (200, 400, 401, 404) and public pages', async () => {
    const answers = await Promise.all([
      site.inject({ method: 'GET', url: '/' }),
      site.inject({ method: 'GET', url: '/people/users' }),
      site.inject({ method: 'GET', url: '/api/user/users', headers: { 'x-api-key': t.apiKey } }),
      site.inject({ method: 'GET', url: '/api/user/users?limit=0', headers: { 'x-api-key': t.apiKey } }),
      site.inject({ method: 'GET', url: '/api/user/users' }),
      site.inject({ method: 'GET', url: '/api/nothing-here' }),
      site.inject({ method: 'GET', url: '/u/not-a-token' }),
      site.inject({ method: 'GET', url: '/healthz' }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 400, 401, 404, 404, 200]);
    for (const a of answers) {
      const csp = String(a.headers['content-security-policy']);
      expect(csp, a.raw.req.url).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toMatch(/script-src 'self' https:\/\/editor\.unlayer\.com(;|$)/);
      expect(csp).not.toContain('upgrade-insecure-requests');
      expect(a.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['referrer-policy']).toBe('same-origin');
      expect(a.headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(a.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('lets other sites embed template images', async () => {
    const res = await site.inject({ method: 'GET', url: `/template-images/${t.projectId}/missing-2026-01-01-00000000.png` });
    expect(res.statusCode).toBe(404);
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('adds HSTS and upgrade-insecure-requests when PUBLIC_URL is https, and allows the configured captcha and conversion hosts', async () => {
    const https = await buildApp({ ...h.runtime.ctx, config: { ...h.config, publicUrl: 'https://mail.example.com' } }, { logLevel: 'silent' });
    try {
      const res = await https.inject({ method: 'GET', url: '/healthz' });
      expect(res.headers['strict-transport-security']).toBe('max-age=15552000; includeSubDomains');
      expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    } finally {
      await https.close();
    }
    const policy = contentSecurityPolicy({
      publicUrl: 'http://localhost:8080',
      conversionTrackingUrl: 'https://track.example.com/conv?x=1',
      captcha: {
        verifyUrl: 'https://www.google.com/recaptcha/api/siteverify',
        secret: 's',
        scriptUrl: 'https://www.google.com/recaptcha/api.js',
        minScore: 0.5,
      },
    });
    expect(policy.scriptSrc).toContain('https://www.google.com');
    expect(policy.frameSrc).toContain('https://www.google.com');
    expect(policy.connectSrc).toEqual(["'self'", 'https://www.google.com', 'https://track.example.com']);
  });
});
