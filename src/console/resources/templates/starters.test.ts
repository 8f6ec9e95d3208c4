/**
 * The gallery's starters are real templates of this product: each file exists, uses only this
 * product's variables, keeps its licence notice, and a marketing starter passes the template checks a save applies
 * (its unsubscribe link; spec part 2 §5 Template), nothing in it is fetched from another site, and no
 * sample text hides in it (a preheader nobody wrote, a sample postal address).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STARTERS } from './starters.ts';
import { checkTemplateContent, suspiciousVariables } from '../../../domain/validation.ts';
import { preheaderOf } from '../../../domain/preheader.ts';

const PUBLIC = path.resolve(import.meta.dirname, '../../../../public');

describe('template starters', () => {
  it.each(STARTERS)('$name uses only known variables, names its licence and passes the save checks', (starter) => {
    const html = readFileSync(path.join(PUBLIC, starter.url), 'utf8');
    expect(suspiciousVariables(html)).toEqual([]);
    for (const v of html.match(/\{\{[^}]*\}\}/g) ?? []) expect(v).toMatch(/^\{\{(user\.[a-z_]+|sender_persona\.[a-z_]+|unsubscribe_link)\}\}$/);
    const licence = /licence: \/starters\/(LICENSE-[a-z]+\.txt)/.exec(html)?.[1];
    expect(licence).toBeDefined();
    expect(readFileSync(path.join(PUBLIC, 'starters', licence!), 'utf8')).toMatch(/MIT License/);
    expect(checkTemplateContent(html, starter.type)).toBeUndefined();
    if (starter.type === 'TEMPLATE_MARKETING') expect(html).toContain('{{unsubscribe_link}}');
    // Nothing a preview would fetch from elsewhere (the console runs offline): no web fonts, images or scripts.
    expect(html).not.toMatch(/@import|<script|<link[^>]+stylesheet/i);
    expect(html.match(/\bsrc=["']https?:[^"']*/gi) ?? []).toEqual([]);
  });

  it.each(STARTERS)('$name carries no placeholder text a recipient would see but the author would not', (starter) => {
    const html = readFileSync(path.join(PUBLIC, starter.url), 'utf8');
    // The preheader is the editor's "Inbox preview text" field, so it is written for this starter, not a sample line.
    expect(preheaderOf(html)).not.toMatch(/preheader text|Some clients will show|^$/i);
    expect(preheaderOf(html)).not.toMatch(/Your product/);
    // No sample postal addresses in the footer.
    expect(html).not.toMatch(/1234 Street|Suite 1234|Company Inc|Commercial Ct/);
  });
});
