/**
 * The links inside emails (DESIGN.md §1), served without an x-api-key since recipients follow them:
 * - GET  /t/o/{token}.gif  open pixel: records ses_event_open, answers a 1×1 transparent GIF;
 * - GET  /t/c/{token}      click redirect: records ses_event_click, 302 to the link the token carries;
 * - GET  /t/h/{token}      the hidden honeypot link: records a bot's ses_event_click, answers 204;
 * Opens and clicks carry the machine / bot verdict of src/domain/engagement.ts; a request whose referrer is the
 * console itself (its email viewer) is answered and never recorded;
 * - GET  /u/{token}        unsubscribe page: names the address and asks to confirm (a GET never unsubscribes, so
 *                          link scanners cannot unsubscribe anyone);
 * - POST /u/{token}        the page's button, or the RFC 8058 one-click POST (body List-Unsubscribe=One-Click) that
 *                          mail clients send to the List-Unsubscribe URL: unsubscribes and confirms;
 * - GET  /v/{token}        a sender persona's verification page (asks); POST confirms it;
 * - /s/{form} and /s/c/{token}: hosted subscribe forms and their confirmation links (plugins/subscribeForms.ts).
 * With subscription topics /u/ is a preference centre: leave the email's topic, choose topics, or leave all.
 * For a contact it also offers "Download my data" and "Delete my data" (core/privacy/selfService.ts): each emails
 * a link to the address;
 * - GET  /p/{token}        that link's page: says what will happen (a GET changes nothing);
 * - POST /p/{token}        its button: downloads the JSON of what is held, or erases the contact.
 * A token that is not genuine (forged, altered, another tenant's) gets 404 and records nothing.
 */
import { escapeUTF8 as escapeHtml } from 'entities';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { QueryFn } from '../db/client.ts';
import {
  projectOfToken,
  verifyClickToken,
  verifyHoneypotToken,
  verifyOpenToken,
  verifyPersonaToken,
  verifyPrivacyToken,
  verifyUnsubscribeToken,
  type LinkTarget,
} from '../mail/links.ts';
import { personaToVerify, verifyPersona } from '../core/personas/verification.ts';
import {
  leaveTopicByLink,
  preferences,
  recordEngagement,
  savePreferencesByLink,
  unsubscribeByLink,
  unsubscribeRecipient,
  type EngagementRequest,
  type Preferences,
} from '../core/feedback/index.ts';
import { projectSecrets } from '../core/accounts/index.ts';
import { originOf } from './securityHeaders.ts';
import { registerSubscribeForms } from './subscribeForms.ts';
import { page } from './publicPage.ts';

import { PRIVACY_REQUESTS_PER_DAY, privacyRequester, requestPrivacyAction } from '../core/privacy/selfService.ts';
import { exportContact } from '../core/privacy/export.ts';
import { eraseContacts } from '../core/privacy/erasure.ts';
import { HttpError } from '../errors.ts';

/** A 1×1 transparent GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** backLink leads from a confirmation back to the preference centre of the same link. */
const backLink = (token: string) => `<a href="/u/${encodeURIComponent(token)}">Manage your email preferences</a>`;

/**
 * preferenceCentre renders the preference centre: leave the email's topic (one button), choose topics
 * (checkboxes; saving while unsubscribed from everything subscribes again), or leave all marketing email. Every
 * change is a POST: a link scanner's GET changes nothing.
 */
/**
 * yourData is the preference centre's "Your data" section for a contact: a download of what is held and a deletion,
 * each confirmed by a link emailed to the address (core/privacy/selfService.ts).
 */
function yourData(p: Preferences): string {
  if (!p.isContact) return '';
  return `<section style="margin-top:32px;border-top:1px solid #ddd;padding-top:16px"><h2 style="font-size:1.1em">Your data</h2>
<p><small>We email ${escapeHtml(p.email)} a link to confirm either request.</small></p>
<form method="post" style="display:inline-block;margin:0 8px 8px 0"><input type="hidden" name="action" value="request-download"><button type="submit" style="background:#555">Download my data</button></form>
<form method="post" style="display:inline-block"><input type="hidden" name="action" value="request-delete"><button type="submit" style="background:#a1271b">Delete my data</button></form></section>`;
}

function preferenceCentre(p: Preferences): string {
  const status = p.unsubscribed
    ? `<p>You are unsubscribed from all marketing email. Choose topics and save to receive them again.</p>`
    : `<p>Choose which email you get from ${escapeHtml(p.company)}.</p>`;
  const leave =
    p.topic && !p.unsubscribed && p.topics.find((t) => t.id === p.topic!.id)?.subscribed
      ? `<form method="post"><input type="hidden" name="action" value="topic"><button type="submit">Unsubscribe from ${escapeHtml(p.topic.name)}</button></form>`
      : '';
  const choose = p.isContact
    ? `<form method="post"><input type="hidden" name="action" value="save">${p.unsubscribed ? '<input type="hidden" name="resubscribe" value="1">' : ''}
<fieldset style="border:0;padding:0;margin:16px 0"><legend><strong>Topics</strong></legend>
${p.topics
  .map(
    (t) =>
      `<p><label><input type="checkbox" name="topic" value="${escapeHtml(t.id)}"${t.subscribed && !p.unsubscribed ? ' checked' : ''}> ${escapeHtml(t.name)}</label>${t.description ? `<br><small>${escapeHtml(t.description)}</small>` : ''}</p>`,
  )
  .join('\n')}</fieldset><button type="submit">Save preferences</button></form>`
    : '';
  const all = p.unsubscribed
    ? ''
    : `<form method="post" style="margin-top:24px"><input type="hidden" name="action" value="all"><button type="submit" style="background:#555">Unsubscribe from all marketing email</button></form>`;
  return page(
    'Email preferences',
    `<p><strong>${escapeHtml(p.email)}</strong></p>${status}${leave}${choose}${all}
<p><small>You will still receive messages about your account and orders.</small></p>${yourData(p)}`,
  );
}

/** registerPublicLinks adds the tracking and unsubscribe routes to `app` (in their own context: they parse any body as text). */
export async function registerPublicLinks(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const secretOf = projectSecrets(query);
  const check = async <T extends LinkTarget>(token: string, verify: (t: string, secret: string) => T | undefined): Promise<T | undefined> => {
    const secret = await secretOf(projectOfToken(token.replace(/\.gif$/, '')));
    return secret ? verify(token, secret) : undefined;
  };
  const notFound = (reply: FastifyReply) => reply.code(404).type('text/plain').header('cache-control', 'no-store').send('Not found');
  const userAgent = (h: unknown) => (typeof h === 'string' ? h.slice(0, 512) : '');

  await app.register(async (scope) => {
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

    // Fastify answers HEAD with the GET route; a HEAD (a link checker, a proxy's probe) is answered but never counted.
    const counted = (req: FastifyRequest) => req.method !== 'HEAD';

    // The console's own views never count: a stored copy shown in the console's viewer (a sandboxed
    // iframe that keeps the console's origin, VIEWER_SANDBOX) loads its pixel and follows its links with the console
    // page as referrer (Referrer-Policy same-origin sends it to this origin only), which no mail client does. Such a
    // request is answered as usual and recorded nowhere.
    const own = new Set([originOf(ctx.config.publicUrl)]);
    const fromConsole = (req: FastifyRequest) => {
      const from = originOf(typeof req.headers.referer === 'string' ? req.headers.referer : undefined);
      return !!from && (own.has(from) || from === originOf(`${req.protocol}://${req.headers.host ?? ''}`));
    };
    const request = (req: FastifyRequest, extra: Partial<EngagementRequest> = {}): EngagementRequest => ({
      userAgent: userAgent(req.headers['user-agent']),
      ip: req.ip,
      appleRanges: ctx.config.appleProxyRanges,
      ...extra,
    });

    scope.get<{ Params: { token: string } }>('/t/o/:token', async (req, reply) => {
      const target = await check(req.params.token, verifyOpenToken);
      if (!target || (counted(req) && !fromConsole(req) && !(await recordEngagement(query, target, 'open', request(req))))) return notFound(reply);
      return reply.type('image/gif').header('cache-control', 'no-store, max-age=0').send(PIXEL);
    });

    scope.get<{ Params: { token: string } }>('/t/c/:token', async (req, reply) => {
      const target = await check(req.params.token, verifyClickToken);
      if (!target || (counted(req) && !fromConsole(req) && !(await recordEngagement(query, target, 'click', request(req, { link: target.url })))))
        return notFound(reply);
      return reply.header('cache-control', 'no-store').redirect(target.url, 302);
    });

    // The hidden honeypot link: only scanners follow it; recorded as a bot's click, answered with nothing.
    scope.get<{ Params: { token: string } }>('/t/h/:token', async (req, reply) => {
      const target = await check(req.params.token, verifyHoneypotToken);
      if (!target || (counted(req) && !fromConsole(req) && !(await recordEngagement(query, target, 'click', request(req, { honeypot: true })))))
        return notFound(reply);
      return reply.code(204).header('cache-control', 'no-store').send();
    });

    // The unsubscribe page and, when the project has subscription topics, its preference centre.
    scope.get<{ Params: { token: string } }>('/u/:token', async (req, reply) => {
      const target = await check(req.params.token, verifyUnsubscribeToken);
      const prefs = target && (await preferences(query, target));
      if (!prefs) return notFound(reply);
      reply.type('text/html').header('cache-control', 'no-store');
      if (prefs.topics.length) return preferenceCentre(prefs);
      if (prefs.unsubscribed) {
        return page(
          'You are unsubscribed',
          `<p>${escapeHtml(prefs.email)} no longer receives marketing email from ${escapeHtml(prefs.company)}.</p>${yourData(prefs)}`,
        );
      }
      return page(
        'Unsubscribe',
        `<p>Stop marketing email from ${escapeHtml(prefs.company)} to <strong>${escapeHtml(prefs.email)}</strong>?</p>
<form method="post"><button type="submit">Unsubscribe</button></form>
<p><small>You will still receive messages about your account and orders.</small></p>${yourData(prefs)}`,
      );
    });

    scope.post<{ Params: { token: string }; Body: string }>('/u/:token', async (req, reply) => {
      const target = await check(req.params.token, verifyUnsubscribeToken);
      const body = typeof req.body === 'string' ? req.body : '';
      // RFC 8058: the body carries List-Unsubscribe=One-Click, form-encoded or as a multipart/form-data field.
      const oneClick =
        /(^|&)List-Unsubscribe=One-Click(&|$)/i.test(body.trim()) || /name="?List-Unsubscribe"?[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\nOne-Click\r?\n/i.test(body);
      if (!target) return notFound(reply);
      const form = oneClick ? new URLSearchParams() : new URLSearchParams(body);
      const action = oneClick ? 'topic' : (form.get('action') ?? 'all');
      reply.header('cache-control', 'no-store');
      if (action === 'request-download' || action === 'request-delete') {
        const asked = await requestPrivacyAction(query, ctx.config.publicUrl, target, action === 'request-download' ? 'download' : 'delete');
        if (!asked) return notFound(reply);
        ctx.notifySender();
        const text =
          asked === 'throttled'
            ? `<p>You have asked ${PRIVACY_REQUESTS_PER_DAY} times today already. Use the link in one of the emails we sent, or try again tomorrow.</p>`
            : `<p>We sent a link to <strong>${escapeHtml(asked)}</strong>. Open it within 24 hours to ${action === 'request-download' ? 'download your data' : 'delete your data'}.</p>`;
        return reply.type('text/html').send(page('Check your inbox', `${text}<p>${backLink(req.params.token)}</p>`));
      }
      if (action === 'save') {
        const saved = await savePreferencesByLink(query, target, form.getAll('topic'), form.get('resubscribe') === '1');
        if (!saved) return notFound(reply);
        return reply.type('text/html').send(page('Your preferences are saved', `<p>${backLink(req.params.token)}</p>`));
      }
      if (action === 'topic') {
        const left = await leaveTopicByLink(query, target, oneClick ? 'one-click' : 'page');
        if (!left) return notFound(reply);
        if (oneClick) return reply.type('text/plain').send('Unsubscribed');
        const who = await unsubscribeRecipient(query, target);
        const text = left.topic
          ? `<p>${escapeHtml(left.email)} no longer receives ${escapeHtml(left.topic.name)} email from ${escapeHtml(who?.company ?? '')}.</p>`
          : `<p>${escapeHtml(left.email)} no longer receives marketing email from ${escapeHtml(who?.company ?? '')}.</p>`;
        return reply.type('text/html').send(page('You are unsubscribed', `${text}<p>${backLink(req.params.token)}</p>`));
      }
      const done = await unsubscribeByLink(query, target, 'page');
      if (!done) return notFound(reply);
      const who = await unsubscribeRecipient(query, target);
      return reply
        .type('text/html')
        .send(page('You are unsubscribed', `<p>${escapeHtml(done.email)} no longer receives marketing email from ${escapeHtml(who?.company ?? '')}.</p>`));
    });

    // A person's own privacy request, confirmed from the emailed link: the page asks, only its button acts.
    const privacyOf = async (token: string) => {
      const secret = await secretOf(projectOfToken(token));
      const t = secret ? verifyPrivacyToken(token, secret) : undefined;
      return t && Date.now() <= t.expiresAt ? t : undefined;
    };
    scope.get<{ Params: { token: string } }>('/p/:token', async (req, reply) => {
      const t = await privacyOf(req.params.token);
      const who = t && (await privacyRequester(query, t));
      reply.type('text/html').header('cache-control', 'no-store');
      if (!t || !who) return reply.code(404).send(page('This link no longer works', '<p>It has expired, or the data was deleted already.</p>'));
      return t.action === 'download'
        ? page(
            'Download your data',
            `<p>Everything we hold about <strong>${escapeHtml(who.email)}</strong>, as a JSON file: your profile, consents, topics and every email we sent you with what happened to it.</p>
<form method="post"><button type="submit">Download my data</button></form>`,
          )
        : page(
            'Delete your data',
            `<p>Delete everything we hold about <strong>${escapeHtml(who.email)}</strong>? Your profile, consents and the copies of the emails we sent you are deleted, and this address is never mailed again unless you subscribe again yourself. This cannot be undone.</p>
<form method="post"><button type="submit" style="background:#a1271b">Delete my data</button></form>`,
          );
    });
    scope.post<{ Params: { token: string } }>('/p/:token', async (req, reply) => {
      const t = await privacyOf(req.params.token);
      reply.header('cache-control', 'no-store');
      const gone = () => reply.code(404).type('text/html').send(page('This link no longer works', '<p>It has expired, or the data was deleted already.</p>'));
      if (!t) return gone();
      try {
        if (t.action === 'download') {
          const data = await exportContact(ctx.database, t.projectId, t.contactId, 'the person');
          return reply
            .type('application/json')
            .header('content-disposition', `attachment; filename="my-data.json"`)
            .send(JSON.stringify(data, null, 2));
        }
        await eraseContacts(ctx, t.projectId, { ids: [t.contactId] }, 'the person');
        return reply
          .type('text/html')
          .send(
            page('Your data is deleted', '<p>Everything we held about this address is deleted. We will not email it again unless you subscribe again.</p>'),
          );
      } catch (err) {
        if (err instanceof HttpError && (err.statusCode === 404 || err.statusCode === 400)) return gone();
        throw err;
      }
    });

    // Hosted subscribe forms and their confirmation links (plugins/subscribeForms.ts).
    registerSubscribeForms(scope, ctx);

    // Sender persona verification: the page asks, its button confirms.
    const personaOf = async (token: string) => {
      const secret = await secretOf(projectOfToken(token));
      return secret ? verifyPersonaToken(token, secret) : undefined;
    };
    scope.get<{ Params: { token: string } }>('/v/:token', async (req, reply) => {
      const target = await personaOf(req.params.token);
      const persona = target && (await personaToVerify(query, target));
      if (!persona) return notFound(reply);
      reply.type('text/html').header('cache-control', 'no-store');
      if (persona.verified) return page('Sender confirmed', `<p>${escapeHtml(persona.email)} is confirmed as a sender.</p>`);
      return page(
        'Confirm sender',
        `<p>Confirm <strong>${escapeHtml(persona.email)}</strong> as a sender? Email is sent from it only once it is confirmed.</p>
<form method="post"><button type="submit">Confirm sender</button></form>`,
      );
    });
    scope.post<{ Params: { token: string } }>('/v/:token', async (req, reply) => {
      const target = await personaOf(req.params.token);
      const email = target && (await verifyPersona(query, target));
      if (!email) return notFound(reply);
      return reply
        .type('text/html')
        .header('cache-control', 'no-store')
        .send(page('Sender confirmed', `<p>${escapeHtml(email)} is confirmed as a sender.</p>`));
    });
  });
}
