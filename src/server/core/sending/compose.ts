/**
 * What one claimed email becomes (spec part 1 §3 email_send_result_success; docs/architecture.md "Sending a blast,
 * exactly once"): the render request — its template, variables, headers (From, Message-ID, List-Unsubscribe, DKIM),
 * tracking and where its exact copy is stored — its envelope sender, and the sent event written with its sent mark.
 */
import { buildRenderContext } from '../../../domain/templateVariables.ts';
import { encodeLocation } from '../../../domain/location.ts';
import { unsubscribeLink } from '../../mail/links.ts';
import { returnPath } from '../../mail/returnPath.ts';
import type { RenderRequest } from '../../mail/render.ts';
import type { BatchData, OutboxRow, PersonaRow, TemplateRow } from './claims.ts';

/** The bucket holding the exact copy of every sent email. */
export const SENT_BUCKET = 'sent-emails';

/** A composed email: what to render, its envelope sender (undefined: the From address), its From address and its stored copy's key. */
export interface Composed {
  request: RenderRequest;
  returnPath?: string;
  /** The From address (the persona's, or a submitted message's own From on the persona's domain). */
  from: string;
  key: string;
}

/**
 * compose builds the render request of `row` from its batch's lookups, with `persona` (verified) and its template
 * (undefined: the row's own subject and body). `publicUrl` is where links point. Marketing mail carries
 * List-Unsubscribe; opens and clicks are tracked on every email but test emails and those sent untracked (the double
 * opt-in confirmation: nobody is tracked before they consent). The envelope sender is a per-message return path at
 * the persona's domain's bounce subdomain once its records verify (bounces and complaints then come back whatever
 * relay sends it: mail/returnPath.ts), else the persona's own address.
 *
 * A message handed in through the sending API or SMTP (its submission in the batch's lookups) keeps its own From, To
 * and Cc header lists (never a Bcc), Reply-To, extra header fields and attachments; its content is used as given
 * (`literal`: no template variables are read in it), or its template is filled from the contact and the submission's
 * `variables`. It carries List-Unsubscribe when opt-outs apply to it (a broadcast stream: eligibility.ts).
 */
export function compose(publicUrl: string, row: OutboxRow, data: BatchData, persona: PersonaRow, template: TemplateRow | undefined): Composed {
  const project = data.projects.get(row.project_id);
  const contact = row.contact_id ? data.contacts.get(row.contact_id) : undefined;
  const domain = data.domains.get(persona.id);
  const key = `${row.project_id}/${new Date().toISOString().slice(0, 10)}/${row.id}.eml`;
  const link = unsubscribeLink(publicUrl, project?.link_secret ?? '', row.project_id, row.contact_id, Number(row.id));
  const submitted = row.submission_id ? data.submissions.get(row.submission_id)?.content : undefined;
  const vars = buildRenderContext(contact ?? { email: row.email }, persona, link, row.event);
  const marketing = template?.type === 'TEMPLATE_MARKETING' || (!!submitted && !!data.exclusions.get(String(row.id))?.marketing);
  const from = submitted
    ? { email: submitted.from.address, name: submitted.from.name ?? null }
    : { email: persona.email, name: [persona.first_name, persona.last_name].filter(Boolean).join(' ') };
  const request: RenderRequest = {
    templateKey: template ? `${template.id}:${template.version}` : `outbox:${row.id}`,
    template: template ?? { subject: row.subject ?? '', html_body: row.body ?? '' },
    vars: submitted?.variables ? { ...submitted.variables, ...vars } : vars,
    ...(submitted && !template ? { literal: { subject: submitted.subject ?? '', html: submitted.html, text: submitted.text } } : {}),
    message: {
      from,
      to: row.email,
      messageId: row.message_id,
      listUnsubscribe: marketing ? link : undefined,
      dkim: data.dkim.get(persona.id),
      ...(submitted
        ? { extra: { to: submitted.to, cc: submitted.cc, replyTo: submitted.replyTo, headers: submitted.headers, attachments: submitted.attachments } }
        : {}),
    },
    store: { bucket: SENT_BUCKET, key },
    tracking:
      row.is_test || !row.tracking || !project
        ? undefined
        : { publicUrl, secret: project.link_secret, projectId: row.project_id, contactId: row.contact_id, outboxId: Number(row.id), unsubscribeLink: link },
  };
  return {
    request,
    returnPath: domain?.returnPathDomain && project ? returnPath(Number(row.id), project.link_secret, domain.returnPathDomain) : undefined,
    from: from.email,
    key,
  };
}

/**
 * sentEvent: the location of the stored copy and the data of the email_send_result_success event written with the
 * sent mark. `via` is how it left; `relay` the relay's name (none for the simulator) and the From's domain are what
 * feedback about it is counted against (core/feedback/blocks.ts); a workflow's email counts for the workflow, with its
 * hop count guarding against cycles.
 */
export function sentEvent(
  row: OutboxRow,
  sent: { key: string; subject: string; response: string; via: 'smtp' | 'capture' | 'simulator'; relay?: string; from: string },
): { location: string; json: Record<string, unknown> } {
  const location = encodeLocation(SENT_BUCKET, sent.key);
  return {
    location,
    json: {
      bucket: SENT_BUCKET,
      key: sent.key,
      location,
      subject: sent.subject,
      message_id: row.message_id,
      blast_id: row.blast_id,
      template_id: row.template_id,
      is_test_email: row.is_test,
      transport: sent.via,
      ...(sent.relay ? { relay: sent.relay } : {}),
      sending_domain: sent.from.split('@').pop()!.toLowerCase(),
      response: sent.response,
      ...(row.workflow_id ? { workflow_id: row.workflow_id, workflow_hops: row.workflow_hops ?? 0 } : {}),
      ...(row.stream !== 'broadcast' ? { stream: row.stream } : {}),
    },
  };
}
