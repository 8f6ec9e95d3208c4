/**
 * The hosted subscribe forms and their confirmation links (core/subscriptions), served without an
 * x-api-key since website visitors use them:
 * - GET  /s/{form}      the form: heading, email, first name, the consent text, and a honeypot field people never see;
 * - POST /s/{form}      a submission (form-encoded; also the HTML snippet's target): creates or updates the contact as
 *                       pending, records the consent and mails the confirmation link; at most SUBMISSIONS_PER_HOUR per
 *                       client address and form (429 after), and CONFIRMATIONS_PER_DAY links per recipient and form
 *                       (past that, the usual answer and nothing sent). A filled honeypot gets the same answer and does nothing;
 * - GET  /s/c/{token}   the confirmation link's page: names the address and asks (a GET confirms nothing, so link
 *                       scanners confirm nobody);
 * - POST /s/c/{token}   its button: confirms (once), the contact joins the form's segment.
 * An unknown or deleted form, and a token that is not genuine, get 404.
 */
import { erasureKey } from '../core/privacy/key.ts';
import { escapeUTF8 as escapeHtml } from 'entities';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { QueryFn } from '../db/client.ts';
import { HttpError } from '../errors.ts';
import { projectSecrets } from '../core/accounts/index.ts';
import { projectOfToken, verifyConfirmationToken } from '../mail/links.ts';
import {
  confirmSubscription,
  pendingConfirmation,
  publicForm,
  FormNotOpen,
  submitForm,
  SubmissionThrottle,
  TooManySubmissions,
  type PublicForm,
} from '../core/subscriptions/index.ts';
import { page } from './publicPage.ts';
import { checkEmail, EMAIL_MAX_LENGTH } from '../../domain/validation.ts';
import { CONTACT_NAME_MAX_LENGTH } from '../core/contacts/rules.ts';

/** formPage renders the hosted form, with `error` (a sentence) above it and the values given back. */
function formPage(form: PublicForm, values: { email?: string; firstName?: string } = {}, error?: string): string {
  return page(
    form.heading,
    `<p>${escapeHtml(form.company)}</p>
${error ? `<p role="alert" style="color:#b00020">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/s/${escapeHtml(form.id)}">
<p><label for="email">Email</label><br><input id="email" type="email" name="email" required maxlength="${EMAIL_MAX_LENGTH}" autocomplete="email" value="${escapeHtml(values.email ?? '')}" style="width:100%;font:inherit;padding:8px;box-sizing:border-box"></p>
<p><label for="first_name">First name (optional)</label><br><input id="first_name" type="text" name="first_name" maxlength="${CONTACT_NAME_MAX_LENGTH}" autocomplete="given-name" value="${escapeHtml(values.firstName ?? '')}" style="width:100%;font:inherit;padding:8px;box-sizing:border-box"></p>
<div aria-hidden="true" style="position:absolute;left:-5000px;top:auto;width:1px;height:1px;overflow:hidden"><label for="website">Leave this field empty</label><input id="website" type="text" name="website" tabindex="-1" autocomplete="off"></div>
<p><small>${escapeHtml(form.consentText)}</small></p>
<button type="submit">Subscribe</button>
</form>`,
  );
}

/** registerSubscribeForms adds the hosted form and confirmation routes to `scope` (a context that parses any body as text). */
export function registerSubscribeForms(scope: FastifyInstance, ctx: AppContext): void {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const secretOf = projectSecrets(query);
  const throttle = new SubmissionThrottle(ctx.database.db);
  const notFound = (reply: FastifyReply) => reply.code(404).type('text/plain').header('cache-control', 'no-store').send('Not found');
  const requester = (req: FastifyRequest) => ({
    ip: req.ip,
    userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : '',
  });
  const confirmation = async (token: string) => {
    const secret = await secretOf(projectOfToken(token));
    return secret ? verifyConfirmationToken(token, secret) : undefined;
  };

  scope.get<{ Params: { form: string } }>('/s/:form', async (req, reply) => {
    const form = await publicForm(query, req.params.form);
    if (!form) return notFound(reply);
    return reply.type('text/html').header('cache-control', 'no-store').send(formPage(form));
  });

  scope.post<{ Params: { form: string }; Body: string }>('/s/:form', async (req, reply) => {
    const form = await publicForm(query, req.params.form);
    if (!form) return notFound(reply);
    const fields = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
    const values = { email: fields.get('email') ?? '', firstName: fields.get('first_name') ?? '' };
    reply.type('text/html').header('cache-control', 'no-store');
    const sent = page(
      'Check your inbox',
      `<p>We sent a confirmation link to <strong>${escapeHtml(values.email.trim())}</strong>. Your subscription to ${escapeHtml(form.heading)} starts when you press the button in that email.</p>`,
    );
    // The honeypot: only bots fill a field people cannot see; they get the usual answer and nothing happens.
    if (fields.get('website')) return sent;
    try {
      await throttle.take(form.id, req.ip);
      // An address already sent CONFIRMATIONS_PER_DAY links from this form today gets no more (the answer is the same).
      if (!checkEmail(values.email.trim()) && !(await throttle.mayMail(form.id, values.email))) return sent;
      await submitForm(ctx.database, ctx.config.publicUrl, form, values, requester(req), erasureKey(ctx.config));
    } catch (err) {
      if (err instanceof FormNotOpen) {
        return reply
          .code(err.statusCode)
          .send(
            page(
              'Sign-ups are not open yet',
              `<p>${escapeHtml(form.heading)} is not taking new subscribers yet. Nothing was saved; please try again in a few days.</p>`,
            ),
          );
      }
      if (err instanceof TooManySubmissions) reply.header('retry-after', String(err.retryAfterS));
      if (err instanceof HttpError && err.statusCode < 500) {
        // Each problem names its field in the form's own words ("Email: …", "First name: …").
        const labels: Record<string, string> = { email: 'Email', first_name: 'First name' };
        const message = err.errors.map((e) => e.replace(/^(email|first_name): /, (_, f: string) => `${labels[f]}: `)).join(' ');
        return reply.code(err.statusCode).send(formPage(form, values, `Please check what you entered. ${message}`));
      }
      throw err;
    }
    return sent;
  });

  scope.get<{ Params: { token: string } }>('/s/c/:token', async (req, reply) => {
    const target = await confirmation(req.params.token);
    const pending = target && (await pendingConfirmation(query, target));
    if (!pending) return notFound(reply);
    reply.type('text/html').header('cache-control', 'no-store');
    if (pending.confirmed) return page('Subscription confirmed', `<p>${escapeHtml(pending.email)} is subscribed to ${escapeHtml(pending.heading)}.</p>`);
    return page(
      'Confirm your subscription',
      `<p>Subscribe <strong>${escapeHtml(pending.email)}</strong> to ${escapeHtml(pending.heading)} from ${escapeHtml(pending.company)}?</p>
<form method="post"><button type="submit">Confirm subscription</button></form>`,
    );
  });

  scope.post<{ Params: { token: string } }>('/s/c/:token', async (req, reply) => {
    const target = await confirmation(req.params.token);
    const pending = target && (await pendingConfirmation(query, target));
    if (!target || !pending) return notFound(reply);
    const done = await confirmSubscription(ctx.database, target, requester(req));
    if (done === undefined) return notFound(reply);
    if (done) ctx.notifyWorkflows();
    return reply
      .type('text/html')
      .header('cache-control', 'no-store')
      .send(page('Subscription confirmed', `<p>${escapeHtml(pending.email)} is subscribed to ${escapeHtml(pending.heading)}. Thank you!</p>`));
  });
}
