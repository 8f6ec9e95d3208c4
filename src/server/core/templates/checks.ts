/**
 * Pre-send checks of one template (openapi/template.yaml checkTemplate; docs/architecture.md §12 "Pre-send checks"):
 * what would go wrong if it were sent now. The email is rendered the way the sender renders it (compileTemplate,
 * the recipient's variables, addTracking, buildRawMessage) for a sample recipient, so the size and the spam score are
 * those of a real email; the HTML rules read the template as sent (active content stripped). Findings are `error`
 * (the console's wizard blocks a launch on any; the server refuses to save a blast only for the one launchBlockers
 * checks without rendering, a marketing template with no usable unsubscribe link), `warning` or `info`.
 */
import { randomUUID } from 'node:crypto';
import { Parser } from 'htmlparser2';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { NotFound } from '../../errors.ts';
import { addTracking, unsubscribeLink } from '../../mail/links.ts';
import { buildRawMessage, compileTemplate } from '../../mail/render.ts';
import { stripActiveContent, textFromHtml } from '../../../domain/emailHtml.ts';
import { preheaderOf } from '../../../domain/preheader.ts';
import { buildRenderContext } from '../../../domain/templateVariables.ts';
import { UUID_RE } from '../../../domain/validation.ts';
import { checkLinks, LINK_CHECK_DEFAULTS, type LinkOutcome } from './links.ts';
import { spamdReport, type SpamReport } from './spamd.ts';
import type { components } from '../../../../generated/types/template.gen.ts';

export type Finding = components['schemas']['CheckFinding'];
export type TemplateCheck = components['schemas']['TemplateCheck'];

/**
 * Gmail clips a message whose HTML is over 102 KB ("[Message clipped] View entire message"), hiding the rest —
 * the unsubscribe link and the open pixel with it. Counted here as 102,000 bytes of the HTML part as the sender
 * writes it (UTF-8, before the transfer encoding), the stricter reading of "102 KB".
 */
export const GMAIL_CLIP_BYTES = 102_000;
/** A subject longer than this (characters) may be cut in inbox lists (RFC 5322 §2.1.1's 78-character line). */
export const SUBJECT_MAX_CHARS = 78;
/** A preheader longer than this (characters) is cut by most inbox lists. */
export const PREHEADER_MAX_CHARS = 140;
/** At most this many distinct links of a template are requested; the rest are reported unchecked. */
export const MAX_LINKS_CHECKED = 100;
/** A sample Message-ID-sized outbox id for the tracking tokens (ids grow; a 10-digit one does not flatter the size). */
const SAMPLE_OUTBOX_ID = 1_000_000_000;

const UNSUBSCRIBE_VARIABLE = /\{\{\s*unsubscribe_link\s*\}\}/;
/** Elements whose text a reader never sees. */
const UNSEEN = new Set(['head', 'style', 'title', 'script', 'noscript', 'template']);

/** What the HTML rules read of a template's HTML as sent: its links, images without alt, and whether the unsubscribe link is in it. */
export interface HtmlFacts {
  /** Every href of an <a> or <area>, entities decoded, trimmed, in document order (duplicates kept). */
  links: string[];
  /** The src of each <img> without an alt attribute (alt="" marks a decorative image and is fine). */
  imagesWithoutAlt: string[];
  /** {{unsubscribe_link}} is in an attribute or in text a reader sees: not in a comment (Outlook's conditional ones included), the head, a style or a script. */
  unsubscribeShown: boolean;
}

/**
 * htmlFacts parses `html` (a template's source; active content is stripped first, as the sender does) with
 * htmlparser2 and returns what the HTML rules read. Never throws.
 */
export function htmlFacts(html: string): HtmlFacts {
  const facts: HtmlFacts = { links: [], imagesWithoutAlt: [], unsubscribeShown: false };
  const open: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        open.push(name);
        const unseen = open.some((n) => UNSEEN.has(n));
        if ((name === 'a' || name === 'area') && attributes.href !== undefined) facts.links.push(attributes.href.trim());
        if (name === 'img' && attributes.alt === undefined) facts.imagesWithoutAlt.push(attributes.src ?? '');
        if (!unseen && Object.values(attributes).some((v) => UNSUBSCRIBE_VARIABLE.test(v))) facts.unsubscribeShown = true;
      },
      ontext(text) {
        if (!open.some((n) => UNSEEN.has(n)) && UNSUBSCRIBE_VARIABLE.test(text)) facts.unsubscribeShown = true;
      },
      onclosetag(name) {
        const at = open.lastIndexOf(name);
        if (at >= 0) open.splice(at);
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.write(stripActiveContent(html));
  parser.end();
  return facts;
}

/** unsubscribeFinding: the error of a marketing template whose HTML as sent has no {{unsubscribe_link}} a reader can use (spec part 2 §5). */
export function unsubscribeFinding(facts: HtmlFacts, type: string): Finding | undefined {
  if (type !== 'TEMPLATE_MARKETING' || facts.unsubscribeShown) return undefined;
  return {
    code: 'unsubscribe_missing',
    severity: 'error',
    field: 'html_body',
    message:
      'This marketing email has no unsubscribe link readers can see: add a link to {{unsubscribe_link}} in its body (one inside a comment, the head, a style or a script does not count).',
  };
}

/** imageFindings: one warning per image without an alt attribute (at most 10, then one for the rest). */
export function imageFindings(facts: HtmlFacts): Finding[] {
  const shown = facts.imagesWithoutAlt.slice(0, 10).map((src): Finding => ({
    code: 'image_alt',
    severity: 'warning',
    field: 'html_body',
    ...(src ? { url: src } : {}),
    message: `An image has no alt text${src ? ` (${src.length > 80 ? `${src.slice(0, 77)}...` : src})` : ''}: readers whose mail app blocks images, and screen readers, get nothing. Add alt text, or alt="" if it is decorative.`,
  }));
  const more = facts.imagesWithoutAlt.length - shown.length;
  if (more > 0) shown.push({ code: 'image_alt', severity: 'warning', field: 'html_body', message: `${more} more images have no alt text.` });
  return shown;
}

/** kb writes a byte count in KB of 1,000 bytes with one decimal, e.g. 110.2 KB. */
function kb(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} KB`;
}

/** sizeFinding: a warning when the HTML as sent (`bytes`, UTF-8) is over GMAIL_CLIP_BYTES, else the size for the record. */
export function sizeFinding(bytes: number): Finding {
  return bytes > GMAIL_CLIP_BYTES
    ? {
        code: 'size',
        severity: 'warning',
        field: 'html_body',
        message: `The email's HTML is ${kb(bytes)} with tracking links added; Gmail clips emails over 102 KB and hides the rest, unsubscribe link included. Shorten it or move content to a web page.`,
      }
    : {
        code: 'size',
        severity: 'info',
        field: 'html_body',
        message: `The email's HTML is ${kb(bytes)} with tracking links added (Gmail clips emails over 102 KB).`,
      };
}

/** subjectFindings: a warning for a subject that renders empty, or longer than SUBJECT_MAX_CHARS characters. */
export function subjectFindings(subject: string): Finding[] {
  const length = [...subject.trim()].length;
  if (!length)
    return [
      {
        code: 'subject_empty',
        severity: 'warning',
        field: 'subject',
        message: 'The subject is empty for the sample recipient; inboxes will show "(no subject)".',
      },
    ];
  if (length > SUBJECT_MAX_CHARS) {
    return [
      {
        code: 'subject_long',
        severity: 'warning',
        field: 'subject',
        message: `The subject is ${length} characters long and may be cut in inboxes; keep it under ${SUBJECT_MAX_CHARS}.`,
      },
    ];
  }
  return [];
}

/** preheaderFindings: a warning when the HTML has no preheader (inbox preview text), or one over PREHEADER_MAX_CHARS characters. */
export function preheaderFindings(html: string): Finding[] {
  const text = preheaderOf(html).trim();
  if (!text) {
    return [
      {
        code: 'preheader_empty',
        severity: 'warning',
        field: 'html_body',
        message: 'There is no inbox preview text: inboxes show the first words of the email instead. Set "Inbox preview text" in the editor.',
      },
    ];
  }
  const length = [...text].length;
  if (length > PREHEADER_MAX_CHARS) {
    return [
      {
        code: 'preheader_long',
        severity: 'warning',
        field: 'html_body',
        message: `The inbox preview text is ${length} characters long; inboxes show about ${PREHEADER_MAX_CHARS}, so the end will be cut.`,
      },
    ];
  }
  return [];
}

/**
 * textPartFinding: the template's text part. With a plain_text_body, nothing; without one the sender makes it from
 * the HTML (compileTemplate), which is info, unless that text is empty (an email of images only): a warning.
 */
export function textPartFinding(t: { html_body: string; plain_text_body?: string | null }): Finding | undefined {
  if (t.plain_text_body?.trim()) return undefined;
  if (!textFromHtml(stripActiveContent(t.html_body)).trim()) {
    return {
      code: 'text_part',
      severity: 'warning',
      field: 'plain_text_body',
      message:
        'The email has no text: it will go out without a plain-text part, which spam filters and some readers dislike. Add text or a plain-text version.',
    };
  }
  return { code: 'text_part', severity: 'info', field: 'plain_text_body', message: 'The plain-text part is made from the HTML when the email is sent.' };
}

/**
 * linksToCheck sorts a template's links: the distinct http(s) links to request (at most MAX_LINKS_CHECKED), and info
 * findings for links with template variables (their address differs per recipient) and for links over the limit.
 * Left out without a finding: anything but http(s) (mailto:, tel:, #…), unsubscribe and opt-out links (requesting one
 * could unsubscribe someone), and this install's own links under `publicUrl` (/u/, /t/, /v/, /s/, /p/).
 */
export function linksToCheck(links: string[], publicUrl: string): { urls: string[]; findings: Finding[] } {
  const own = ['u', 't', 'v', 's', 'p'].map((p) => `${publicUrl.replace(/\/+$/, '')}/${p}/`);
  const urls: string[] = [];
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const link of links) {
    if (seen.has(link)) continue;
    seen.add(link);
    if (UNSUBSCRIBE_VARIABLE.test(link)) continue;
    if (!/^https?:\/\//i.test(link)) continue;
    if (own.some((prefix) => link.startsWith(prefix)) || /unsubscribe|opt-?out/i.test(link)) continue;
    if (/\{\{/.test(link)) {
      findings.push({
        code: 'link_variable',
        severity: 'info',
        field: 'html_body',
        url: link,
        message: `The link ${link} was not checked: it has template variables, so its address differs per recipient.`,
      });
      continue;
    }
    urls.push(link);
  }
  if (urls.length > MAX_LINKS_CHECKED) {
    findings.push({
      code: 'link_unchecked',
      severity: 'info',
      field: 'html_body',
      message: `${urls.length - MAX_LINKS_CHECKED} links were not checked: at most ${MAX_LINKS_CHECKED} are checked.`,
    });
  }
  return { urls: urls.slice(0, MAX_LINKS_CHECKED), findings };
}

/** linkFinding turns one link's outcome into a finding (none for a link that answers). */
export function linkFinding(o: LinkOutcome): Finding | undefined {
  const base = { field: 'html_body', url: o.url } as const;
  switch (o.kind) {
    case 'ok':
      return undefined;
    case 'dead':
      return { ...base, code: 'link_dead', severity: 'warning', message: `The link ${o.url} does not work: ${o.detail}.` };
    case 'slow':
      return { ...base, code: 'link_slow', severity: 'warning', message: `The link ${o.url} is too slow: ${o.detail}.` };
    case 'redirects':
      return { ...base, code: 'link_redirects', severity: 'warning', message: `The link ${o.url} may never reach a page: ${o.detail}.` };
    case 'private':
      return {
        ...base,
        code: 'link_private',
        severity: 'warning',
        message: `The link ${o.url} was not checked: private address (${o.detail}); readers cannot reach it either.`,
      };
    case 'unchecked':
      return { ...base, code: 'link_unchecked', severity: 'info', message: `The link ${o.url} was not checked: ${o.detail}.` };
  }
}

/** spamOf: the answer's spam part (the 5 rules that added most, largest first) and its finding: a warning at or over the threshold. */
export function spamOf(r: SpamReport): { spam: NonNullable<TemplateCheck['spam']>; finding: Finding } {
  const rules = [...r.rules].sort((a, b) => b.score - a.score).slice(0, 5);
  const top = rules.filter((x) => x.score > 0).map((x) => `${x.name} ${x.score}`);
  const over = r.score >= r.threshold;
  return {
    spam: { score: r.score, threshold: r.threshold, rules },
    finding: {
      code: 'spam_score',
      severity: over ? 'warning' : 'info',
      message: `SpamAssassin scores this email ${r.score} (spam from ${r.threshold})${over ? ': it will likely land in spam folders' : ''}${top.length ? `; most points from ${top.join(', ')}` : ''}.`,
    },
  };
}

const RANK = { error: 0, warning: 1, info: 2 } as const;

/** byWorstFirst orders findings error, warning, info (stable within each). */
export function byWorstFirst(findings: Finding[]): Finding[] {
  return [...findings].sort((a, b) => RANK[a.severity] - RANK[b.severity]);
}

interface TemplateRow {
  id: string;
  type: string;
  subject: string;
  html_body: string;
  plain_text_body: string | null;
  version: number;
}

/** ONE_TEMPLATE: live template $2 of project $1, with the project's link secret. */
const ONE_TEMPLATE = `SELECT t.id, t.type, t.subject, t.html_body, t.plain_text_body, t.version, p.link_secret
  FROM templates t JOIN projects p ON p.id = t.project_id WHERE t.project_id = $1 AND t.id = $2 AND t.archived_at IS NULL`;
/** SAMPLE_CONTACT: project $1's oldest live contact, the check's sample recipient. */
const SAMPLE_CONTACT = `SELECT id, email, first_name, last_name, timezone, date_of_birth, unsubscribed_at, updated_at, version, json
  FROM contacts WHERE project_id = $1 AND archived_at IS NULL ORDER BY created_at, id LIMIT 1`;
/** SAMPLE_PERSONA: project $1's oldest live sender persona, verified ones first, the check's sample sender. */
const SAMPLE_PERSONA = `SELECT email, first_name, last_name, json FROM sender_personas WHERE project_id = $1 AND archived_at IS NULL
  ORDER BY verified_at IS NULL, created_at, id LIMIT 1`;
/** LAUNCH_TEMPLATES: project $1's live templates among ids $2, for launchBlockers. */
const LAUNCH_TEMPLATES = `SELECT id, name, type, html_body FROM templates WHERE project_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL`;

/** The sample email of a template: subject, HTML and text as sent, and the whole message's bytes. */
interface Sample {
  subject: string;
  html: string;
  raw: Buffer;
}

/**
 * renderSample renders template `t` as the sender would for the project's first contact (else a placeholder
 * recipient) from its first sender persona (else a placeholder address at PUBLIC_URL's host): variables, tracked
 * links, hidden link and open pixel, List-Unsubscribe for marketing, the MIME message (not DKIM-signed).
 */
async function renderSample(ctx: AppContext, projectId: string, t: TemplateRow & { link_secret: string }): Promise<Sample> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const publicUrl = ctx.config.publicUrl;
  const [contact] = await query<Record<string, unknown> & { id: string; email: string }>(SAMPLE_CONTACT, [projectId]);
  const [persona] = await query<Record<string, unknown> & { email: string; first_name: string; last_name: string | null }>(SAMPLE_PERSONA, [projectId]);
  const contactId = contact?.id ?? randomUUID();
  const to = contact?.email ?? 'sample.recipient@example.com';
  const from = persona
    ? { email: persona.email, name: [persona.first_name, persona.last_name].filter(Boolean).join(' ') }
    : { email: `sender@${new URL(publicUrl).hostname}` };
  const link = unsubscribeLink(publicUrl, t.link_secret, projectId, contactId, SAMPLE_OUTBOX_ID);
  const vars = buildRenderContext(contact ?? { email: to }, persona ?? from, link);
  const compiled = compileTemplate(t);
  const subject = compiled.subject(vars);
  const html = addTracking(compiled.html(vars), {
    publicUrl,
    secret: t.link_secret,
    projectId,
    contactId,
    outboxId: SAMPLE_OUTBOX_ID,
    unsubscribeLink: link,
  });
  const raw = await buildRawMessage({
    from,
    to,
    subject,
    html,
    text: compiled.text?.(vars),
    messageId: `<${randomUUID()}@${from.email.split('@').pop()}>`,
    listUnsubscribe: t.type === 'TEMPLATE_MARKETING' ? link : undefined,
  });
  return { subject, html, raw };
}

/**
 * checkTemplate runs the pre-send checks of project `projectId`'s template `id` (openapi checkTemplate): size as
 * sent against GMAIL_CLIP_BYTES, images without alt, links that do not answer (core/templates/links.ts; private
 * addresses only when WEBHOOK_ALLOW_PRIVATE allows them), the unsubscribe link of marketing mail, the text part, the
 * subject and the preheader, and SpamAssassin's score when SPAMD_URL is set (spamd unreachable: an info finding).
 * Findings come worst first. Throws NotFound for an id that is not a live template of the project.
 */
export async function checkTemplate(ctx: AppContext, projectId: string, id: string): Promise<TemplateCheck> {
  const [t] = UUID_RE.test(id) ? await ctx.database.query<TemplateRow & { link_secret: string }>(ONE_TEMPLATE, [projectId, id]) : [];
  if (!t) throw new NotFound([`id: no template ${id} in this project`]);
  const facts = htmlFacts(t.html_body);
  const findings: Finding[] = [];
  const unsubscribe = unsubscribeFinding(facts, t.type);
  if (unsubscribe) findings.push(unsubscribe);
  let sample: Sample | undefined;
  try {
    sample = await renderSample(ctx, projectId, t);
  } catch (err) {
    findings.push({
      code: 'render_failed',
      severity: 'error',
      field: 'html_body',
      message: `The email does not render: ${(err as Error).message.split('\n')[0]}.`,
    });
  }
  if (sample) findings.push(sizeFinding(Buffer.byteLength(sample.html, 'utf8')), ...subjectFindings(sample.subject));
  findings.push(...preheaderFindings(t.html_body), ...imageFindings(facts));
  const text = textPartFinding(t);
  if (text) findings.push(text);
  const links = linksToCheck(facts.links, ctx.config.publicUrl);
  const spamdUrl = ctx.config.spamdUrl;
  const raw = sample?.raw;
  const [outcomes, spam] = await Promise.all([
    checkLinks(links.urls, { ...LINK_CHECK_DEFAULTS, allowPrivate: ctx.config.webhooks.allowPrivate }),
    spamdUrl && raw ? spamdReport(spamdUrl, raw).then(spamOf, (err: Error) => err) : undefined,
  ]);
  for (const o of outcomes) {
    const f = linkFinding(o);
    if (f) findings.push(f);
  }
  findings.push(...links.findings);
  if (spam instanceof Error) {
    findings.push({ code: 'spam_unavailable', severity: 'info', message: `The spam score is unavailable: the spam checker did not answer (${spam.message}).` });
  } else if (spam) findings.push(spam.finding);
  return {
    findings: byWorstFirst(findings),
    size_bytes: sample ? Buffer.byteLength(sample.html, 'utf8') : 0,
    ...(spam && !(spam instanceof Error) ? { spam: spam.spam } : {}),
  };
}

/**
 * launchBlockers returns the error findings that stop a launch of templates `templateIds` of project `projectId`
 * (today: a marketing template whose HTML as sent has no usable {{unsubscribe_link}}), each with the template's id
 * and a sentence naming it. Pure HTML rules only: no link is requested. Unknown ids are skipped (the caller reports them).
 */
export async function launchBlockers(query: QueryFn, projectId: string, templateIds: string[]): Promise<Array<{ templateId: string; message: string }>> {
  const ids = templateIds.filter((id) => UUID_RE.test(id));
  if (!ids.length) return [];
  const rows = await query<{ id: string; name: string; type: string; html_body: string }>(LAUNCH_TEMPLATES, [projectId, ids]);
  const out: Array<{ templateId: string; message: string }> = [];
  for (const r of rows) {
    const f = unsubscribeFinding(htmlFacts(r.html_body), r.type);
    if (f) out.push({ templateId: r.id, message: `template '${r.name}': ${f.message}` });
  }
  return out;
}
