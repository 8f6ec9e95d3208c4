/**
 * contact_us gateway (openapi/contact_us.yaml; spec part 1 §3 Contact message, §7, §8): stores a visitor's
 * message for the support team after the optional server-side captcha check. Empty messages and invalid emails are a
 * 400 naming the field; over-long input is refused by the schema.
 */
import type { operations } from '../../../../generated/types/contact_us.gen.ts';
import type { AppContext } from '../../context.ts';
import { saveContactMessage } from '../../core/accounts/team.ts';
import { verifyCaptcha } from '../../captcha.ts';
import { FieldErrors } from '../../errors.ts';
import { checkEmail, checkRequired } from '../../../domain/validation.ts';
import type { GatewayHandlers } from '../types.ts';

/** contactUsHandlers builds the contact_us gateway's handlers over one app context. */
export function contactUsHandlers(ctx: AppContext): GatewayHandlers<operations> {
  return {
    async sendContactMessage(req) {
      const { email, name, details, captcha_answer: answer } = req.body;
      const errs = new FieldErrors();
      errs.add('email', checkEmail(email));
      errs.add('details', checkRequired(details.trim()));
      errs.throwIfAny();
      errs.add('captcha', await verifyCaptcha(ctx.config.captcha, answer, req.ip));
      errs.throwIfAny();
      await saveContactMessage(ctx.database.db, { email: email.trim(), name: name?.trim() || null, details: details.trim(), ip: req.ip });
      return { code: 200 as const, errors: [] as never[] };
    },
  };
}
