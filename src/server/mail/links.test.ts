import { describe, expect, it } from 'vitest';
import {
  addTracking,
  clickUrl,
  openPixelUrl,
  projectOfToken,
  unsubscribeLink,
  verifyClickToken,
  verifyOpenToken,
  verifyHoneypotToken,
  verifyUnsubscribeToken,
} from './links.ts';

const target = { projectId: '11111111-2222-4333-8444-555555555555', contactId: '66666666-7777-4888-9999-000000000000', outboxId: 42 };
const base = 'https://mail.example.com';
const token = (url: string, prefix: string) => url.slice(`${base}${prefix}`.length);

describe('signed links', () => {
  it('round-trips unsubscribe, open and click tokens and names the project', () => {
    const u = token(unsubscribeLink(base, 'k1', target.projectId, target.contactId, 42), '/u/');
    expect(verifyUnsubscribeToken(u, 'k1')).toEqual(target);
    expect(projectOfToken(u)).toBe(target.projectId);
    const o = token(openPixelUrl(base, 'k1', target), '/t/o/');
    expect(o.endsWith('.gif')).toBe(true);
    expect(verifyOpenToken(o, 'k1')).toEqual(target);
    const c = token(clickUrl(base, 'k1', target, 'https://shop.example.com/a?b=1&c=2'), '/t/c/');
    expect(verifyClickToken(c, 'k1')).toEqual({ ...target, url: 'https://shop.example.com/a?b=1&c=2' });
  });

  it('refuses another key, a token of another kind, and any altered payload', () => {
    const c = token(clickUrl(base, 'k1', target, 'https://shop.example.com/'), '/t/c/');
    expect(verifyClickToken(c, 'k2')).toBeUndefined();
    expect(verifyOpenToken(c, 'k1')).toBeUndefined();
    expect(verifyUnsubscribeToken(c, 'k1')).toBeUndefined();
    const [payload, sig] = c.split('.');
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('shop.example.com', 'evil.example.com')).toString('base64url');
    expect(verifyClickToken(`${forged}.${sig}`, 'k1')).toBeUndefined();
    expect(verifyClickToken(`${payload}.${sig.slice(1)}x`, 'k1')).toBeUndefined();
    expect(verifyClickToken('garbage', 'k1')).toBeUndefined();
  });

  it('never redirects a genuine token to a scheme other than http(s)', () => {
    const js = token(clickUrl(base, 'k1', target, 'javascript:alert(1)'), '/t/c/');
    expect(verifyClickToken(js, 'k1')).toBeUndefined();
  });

  it('reads the project only from a well-formed UUID (anything else finds no key)', () => {
    const odd = `${Buffer.from('u\n--------------------------------1234\n\n42').toString('base64url')}.sig`;
    expect(projectOfToken(odd)).toBeUndefined();
    expect(projectOfToken('')).toBeUndefined();
  });
});

describe('addTracking', () => {
  const unsub = unsubscribeLink(base, 'k1', target.projectId, target.contactId, 42);
  const ctx = { ...target, publicUrl: base, secret: 'k1', unsubscribeLink: unsub };

  it('wraps http(s) links, leaves mailto, anchors, the unsubscribe link and data-no-track alone, and adds one pixel before </body>', () => {
    const html = `<html><body><a class="btn" href="https://shop.example.com/?a=1&amp;b=2">Shop</a> <a href='http://x.example.com/'>X</a>
      <a href="mailto:hi@example.com">Mail</a> <a href="#top">Top</a> <a href="${unsub}">Unsubscribe</a>
      <a data-no-track href="https://private.example.com/">P</a></body></html>`;
    const out = addTracking(html, ctx);
    const hrefs = [...out.matchAll(/href=(["'])(.*?)\1/g)].map((m) => m[2]);
    expect(hrefs[0].startsWith(`${base}/t/c/`)).toBe(true);
    expect(verifyClickToken(hrefs[0].slice(`${base}/t/c/`.length), 'k1')?.url).toBe('https://shop.example.com/?a=1&b=2');
    expect(verifyClickToken(hrefs[1].slice(`${base}/t/c/`.length), 'k1')?.url).toBe('http://x.example.com/');
    expect(hrefs.slice(2, 6)).toEqual(['mailto:hi@example.com', '#top', unsub, 'https://private.example.com/']);
    // The hidden honeypot link, then the pixel, before </body>.
    expect(hrefs).toHaveLength(7);
    expect(verifyHoneypotToken(hrefs[6].slice(`${base}/t/h/`.length), 'k1')).toEqual({
      projectId: target.projectId,
      contactId: target.contactId,
      outboxId: 42,
    });
    expect(out).toMatch(/<a href="[^"]+\/t\/h\/[^"]+" style="display:none!important;[^"]*" aria-hidden="true" tabindex="-1"><\/a><img src=/);
    expect(out.match(/\/t\/o\//g)).toHaveLength(1);
    expect(out.indexOf('/t/o/')).toBeLessThan(out.indexOf('</body>'));
    expect(html).not.toContain('/t/c/');
  });

  it('signs the URL a browser would follow: every HTML entity in the attribute decoded', () => {
    // Handlebars escapes = as &#x3D; inside {{…}}, so a link built from variables arrives entity-encoded.
    const out = addTracking('<a href="https://shop.example.com/p?id&#x3D;7&amp;ref&#61;mail&copy=1">P</a>', ctx);
    const href = /href="([^"]+)"/.exec(out)![1];
    expect(verifyClickToken(href.slice(`${base}/t/c/`.length), 'k1')?.url).toBe('https://shop.example.com/p?id=7&ref=mail&copy=1');
  });

  it('rewrites only the href attribute, not data-href or other look-alikes', () => {
    const out = addTracking('<a data-href="https://a.example.com/" href="https://b.example.com/">B</a>', ctx);
    expect(out).toContain('data-href="https://a.example.com/"');
    expect(verifyClickToken(/ href="([^"]+)"/.exec(out)![1].slice(`${base}/t/c/`.length), 'k1')?.url).toBe('https://b.example.com/');
  });

  it('appends the pixel to HTML without a body element', () => {
    expect(addTracking('<p>Hi</p>', ctx)).toMatch(
      /^<p>Hi<\/p><a href="https:\/\/mail\.example\.com\/t\/h\/[^"]+"[^>]*><\/a><img src="https:\/\/mail\.example\.com\/t\/o\/[^"]+\.gif"/,
    );
  });
});
