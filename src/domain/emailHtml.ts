/**
 * What is sent of a template's HTML (spec part 2 §5 Template): active content is
 * stripped (script elements, event-handler attributes, javascript:/vbscript: URLs), and the text part is generated from
 * the HTML when the template has no plain_text_body. Both work on the template source, so Handlebars variables
 * ({{user.first_name}}, {{unsubscribe_link}}) pass through untouched and each runs once per template version, not per
 * recipient. Everything else, comments (Outlook's conditional comments) and malformed markup included, is kept byte
 * for byte: a template whose HTML is broken still renders what it can.
 */
import { Parser } from 'htmlparser2';
import { convert } from 'html-to-text';

/** Attributes whose value is a URL a client may follow or load. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'background', 'xlink:href', 'poster', 'srcset']);
// eslint-disable-next-line no-control-regex -- browsers skip leading C0 controls before a URL scheme (WHATWG URL), so "\x01javascript:" must match
const SCRIPT_URL = /^[\s\u0000-\u001f]*(javascript|vbscript|livescript)\s*:/i;

/** escapeAttribute writes an attribute value for a double-quoted attribute. */
function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

/**
 * stripActiveContent returns `html` without script elements (with their content), on* event-handler attributes and
 * attributes whose URL uses the javascript:, vbscript: or livescript: scheme. Only the tags concerned are rewritten;
 * the rest of the source is kept as it was. Never throws (the parser accepts any input).
 */
export function stripActiveContent(html: string): string {
  const cuts: Array<{ start: number; end: number; text: string }> = [];
  let scriptStart = -1;
  const parser = new Parser(
    {
      onopentag(name, attributes, isImplied) {
        if (isImplied) return;
        if (name === 'script') {
          if (scriptStart < 0) scriptStart = parser.startIndex;
          return;
        }
        const kept = Object.entries(attributes).filter(([key, value]) => !/^on/i.test(key) && !(URL_ATTRIBUTES.has(key) && SCRIPT_URL.test(value)));
        if (kept.length === Object.keys(attributes).length) return;
        const source = html.slice(parser.startIndex, parser.endIndex + 1);
        const selfClosing = /\/\s*>$/.test(source);
        const attrs = kept.map(([key, value]) => ` ${key}="${escapeAttribute(value)}"`).join('');
        cuts.push({ start: parser.startIndex, end: parser.endIndex + 1, text: `<${name}${attrs}${selfClosing ? ' /' : ''}>` });
      },
      onclosetag(name, isImplied) {
        if (name !== 'script' || scriptStart < 0) return;
        cuts.push({ start: scriptStart, end: isImplied ? html.length : parser.endIndex + 1, text: '' });
        scriptStart = -1;
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  if (scriptStart >= 0) cuts.push({ start: scriptStart, end: html.length, text: '' });
  if (!cuts.length) return html;
  let out = '';
  let at = 0;
  for (const cut of cuts.sort((a, b) => a.start - b.start)) {
    if (cut.start < at) continue; // inside a script already cut
    out += html.slice(at, cut.start) + cut.text;
    at = cut.end;
  }
  return out + html.slice(at);
}

/**
 * textFromHtml returns the plain-text alternative of an email's HTML (html-to-text): paragraphs and line breaks kept,
 * lines wrapped at 78 characters, links as "text [url]" (the url alone when it equals the text), images left out, and
 * nothing upper-cased, so Handlebars variables keep their names.
 */
export function textFromHtml(html: string): string {
  const keepCase = { uppercase: false };
  return convert(html, {
    wordwrap: 78,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: keepCase })),
      { selector: 'table.data', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  }).trim();
}
