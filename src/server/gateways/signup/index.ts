/**
 * signup gateway (openapi/signup.yaml; spec part 1 §3 Sign-up payload, §4, §8): a new company, its first
 * project in the sandbox and its first admin, or a 400 whose messages name the payload's fields; and the public
 * configuration of the optional captcha and conversion tracking.
 */
import type { operations } from '../../../../generated/types/signup.gen.ts';
import type { AppContext } from '../../context.ts';
import { createAccount } from '../../core/accounts/index.ts';
import { verifyCaptcha } from '../../captcha.ts';
import { BadRequest, FieldErrors } from '../../errors.ts';
import { checkWebsite } from '../../../domain/validation.ts';
import { DEFAULT_PLAN } from '../../../domain/pricing.ts';
import { promoCodeFor } from '../../../domain/promo.ts';
import type { GatewayHandlers } from '../types.ts';

/** The first project's name when the payload gives none. */
export const DEFAULT_PROJECT_NAME = 'Main project';

/** The sign-up payload's names for the fields createAccount checks (spec part 1 §3). */
const FIELDS = { email: 'company_user.email', password: 'password', company: 'company_display_name', project: 'project_display_name' };

/** signupHandlers builds the signup gateway's handlers over one app context. */
export function signupHandlers(ctx: AppContext): GatewayHandlers<operations> {
  return {
    async signup(req, reply) {
      const body = req.body;
      const website = body.company_user.json?.business_website ?? null;
      const source = body.source ?? body.company_user.json?.source ?? null;
      try {
        const errs = new FieldErrors();
        errs.add('company_user.json.business_website', checkWebsite(website));
        errs.add('captcha', await verifyCaptcha(ctx.config.captcha, body.captcha_answer, req.ip));
        errs.throwIfAny();
        const plan = body.product_package_id ?? DEFAULT_PLAN;
        const promoCode = promoCodeFor(source);
        await createAccount(
          ctx.database.db,
          {
            company: body.company_display_name,
            project: body.project_display_name?.trim() || DEFAULT_PROJECT_NAME,
            email: body.company_user.email,
            password: body.password,
            firstName: body.company_user.first_name,
            lastName: body.company_user.last_name,
            activated: false,
            companyJson: { plan, business_website: website?.trim() || null, source, ...(promoCode ? { promo_code: promoCode } : {}) },
            userJson: { addedBy: 'signup', business_website: website?.trim() || null, source },
          },
          FIELDS,
        );
        return { code: 200, errors: [] };
      } catch (err) {
        if (!(err instanceof BadRequest)) throw err;
        reply.code(400);
        return { code: 400, errors: err.errors };
      }
    },
    async getSignupConfig() {
      const { captcha, conversionTrackingUrl } = ctx.config;
      return {
        captcha: captcha?.siteKey && captcha.scriptUrl ? { site_key: captcha.siteKey, script_url: captcha.scriptUrl } : null,
        conversion_tracking_url: conversionTrackingUrl ?? null,
      };
    },
  };
}
