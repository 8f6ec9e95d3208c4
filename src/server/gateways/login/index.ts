/**
 * login gateway (openapi/login.yaml): email + password → session, with failed attempts rate-limited per client
 * address and per account in the database (loginThrottle.ts); and the demo login (demo.ts) for /demo-login.
 */
import type { operations } from '../../../../generated/types/login.gen.ts';
import type { AppContext } from '../../context.ts';
import { login } from '../../core/accounts/index.ts';
import { demoLogin } from '../../core/accounts/demo.ts';
import { HttpError } from '../../errors.ts';
import { LoginThrottle, TooManyAttempts } from '../../core/accounts/loginThrottle.ts';
import type { GatewayHandlers } from '../types.ts';

/** loginHandlers builds the login gateway's handlers over one app context. */
export function loginHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const throttle = new LoginThrottle(ctx.database.db, {
    perAddress: ctx.config.loginMaxFailures,
    perAccount: ctx.config.loginMaxFailuresPerAccount,
    windowS: ctx.config.loginFailureWindowS,
  });
  return {
    async login(req, reply) {
      const { email } = req.body;
      try {
        await throttle.check(req.ip, email);
        try {
          const session = await login(ctx.database.db, ctx.config.publicUrl, email, req.body.password);
          await throttle.succeeded(email);
          return session;
        } catch (err) {
          if (err instanceof HttpError && err.statusCode === 401) await throttle.failed(req.ip, email);
          throw err;
        }
      } catch (err) {
        if (err instanceof TooManyAttempts) reply.header('retry-after', String(err.retryAfterS));
        throw err;
      }
    },
    async demoLogin(req) {
      return demoLogin(ctx.database.db, ctx.config.publicUrl, req.body.email, req.ip);
    },
  };
}
