/** The preheader: read from and written into an email's HTML, the rest of the source unchanged. */
import { describe, expect, it } from 'vitest';
import { preheaderOf, withPreheader } from './preheader';

describe('preheaderOf and withPreheader', () => {
  const leeMunroe =
    '<html><body class="x"><table><tr><td><span class="preheader" style="display: none;">Old &amp; hidden <b>line</b></span><p>Hi {{user.first_name}}</p></td></tr></table></body></html>';

  it('reads the preheader element’s text, entities decoded and nested tags flattened', () => {
    expect(preheaderOf(leeMunroe)).toBe('Old & hidden line');
    expect(preheaderOf('<p>No preheader</p>')).toBe('');
  });

  it('replaces the content only, escaping the text and keeping variables', () => {
    const out = withPreheader(leeMunroe, 'News for {{user.first_name}} <3 & more');
    expect(out).toContain('<span class="preheader" style="display: none;">News for {{user.first_name}} &lt;3 &amp; more</span><p>Hi');
    expect(preheaderOf(out)).toBe('News for {{user.first_name}} <3 & more');
    expect(out.replace(/<span class="preheader".*?<\/span>/, '')).toBe(leeMunroe.replace(/<span class="preheader".*?<\/span>/, ''));
  });

  it('adds a hidden span at the start of the body when there is none, and removes it for an empty text', () => {
    const added = withPreheader('<html><body style="margin:0"><p>Hello</p></body></html>', 'Your receipt');
    expect(added).toMatch(/^<html><body style="margin:0"><span class="preheader" style="display: none;[^"]*">Your receipt<\/span><p>Hello/);
    expect(withPreheader('<p>Fragment</p>', 'Top')).toMatch(/^<span class="preheader"[^>]*>Top<\/span><p>Fragment/);
    expect(withPreheader(added, '  ')).toBe('<html><body style="margin:0"><p>Hello</p></body></html>');
    expect(withPreheader('<p>x</p>', '')).toBe('<p>x</p>');
  });
});
