/**
 * An email's preheader: the hidden line after the subject in inbox lists (the element with the class "preheader",
 * as in Lee Munroe's and Postmark's templates). The template editor shows it as a field ("Inbox preview text") and
 * the previews show it beside the subject, so no sample text hides in a template. Its own module (htmlparser2 only),
 * so the console does not load html-to-text with it.
 */
import { Parser } from 'htmlparser2';

/** The hidden element a preheader is written as: shown by inbox lists after the subject, never in the opened email. */
const PREHEADER_STYLE = 'display: none; max-height: 0; max-width: 0; opacity: 0; overflow: hidden; mso-hide: all; visibility: hidden;';

/** Where an email's preheader element is in its source: the element's whole span and its content's, in characters. */
interface PreheaderAt {
  start: number;
  end: number;
  contentStart: number;
  contentEnd: number;
  text: string;
}

/** Finds the first element whose class names include "preheader", and the end of the `<body>` open tag. */
function locatePreheader(html: string): { preheader?: PreheaderAt; bodyOpenEnd?: number } {
  let found: PreheaderAt | undefined;
  let bodyOpenEnd: number | undefined;
  let depth = 0;
  let open: { start: number; contentStart: number; text: string } | undefined;
  const parser = new Parser(
    {
      onopentag(name, attributes, isImplied) {
        if (name === 'body' && !isImplied && bodyOpenEnd === undefined) bodyOpenEnd = parser.endIndex + 1;
        if (found) return;
        if (open) {
          depth++;
          return;
        }
        if (!isImplied && /(^|\s)preheader(\s|$)/i.test(attributes.class ?? '')) {
          open = { start: parser.startIndex, contentStart: parser.endIndex + 1, text: '' };
          depth = 0;
        }
      },
      ontext(text) {
        if (open) open.text += text;
      },
      onclosetag(_name, isImplied) {
        if (!open || found) return;
        if (depth > 0) {
          depth--;
          return;
        }
        const end = isImplied ? parser.startIndex : parser.endIndex + 1;
        found = { start: open.start, end, contentStart: open.contentStart, contentEnd: isImplied ? end : parser.startIndex, text: open.text };
        open = undefined;
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  return { preheader: found, bodyOpenEnd };
}

/**
 * preheaderOf returns an email's preheader: the text of its first element with the class "preheader" (the hidden
 * line inbox lists show after the subject), whitespace collapsed; '' when it has none. Handlebars variables are kept.
 */
export function preheaderOf(html: string): string {
  return (locatePreheader(html).preheader?.text ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * withPreheader returns `html` with its preheader set to `text` (HTML-escaped; Handlebars variables kept): the
 * existing preheader element's content is replaced, or a hidden span is added at the start of the body (of the
 * document when it has no body). An empty `text` removes the preheader element. The rest of the source is unchanged.
 */
export function withPreheader(html: string, text: string): string {
  const wanted = text.replace(/\s+/g, ' ').trim();
  const escaped = wanted.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const { preheader, bodyOpenEnd } = locatePreheader(html);
  if (preheader) {
    if (!wanted) return html.slice(0, preheader.start) + html.slice(preheader.end);
    return html.slice(0, preheader.contentStart) + escaped + html.slice(preheader.contentEnd);
  }
  if (!wanted) return html;
  const at = bodyOpenEnd ?? 0;
  return `${html.slice(0, at)}<span class="preheader" style="${PREHEADER_STYLE}">${escaped}</span>${html.slice(at)}`;
}
