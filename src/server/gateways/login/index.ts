/**
 * login gateway (openapi/login.yaml): email + password → session, with failed attempts rate-limited per client
 * address (loginThrottle.ts); and the demo login (demo.ts) for /demo-login.
 */
import type { operations } from '../../../../generated/types/login.gen.ts';
import type { AppContext } from '../../context.ts';
import { login } from '../../accounts.ts';
import { demoLogin } from '../../demo.ts';
import { HttpError } from '../../errors.ts';
import { LoginThrottle, TooManyAttempts } from '../../loginThrottle.ts';
import type { GatewayHandlers } from '../types.ts';

/** loginHandlers builds the login gateway's handlers over one app context. */
export function loginHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const throttle = new LoginThrottle(ctx.config.loginMaxFailures, ctx.config.loginFailureWindowS);
  return {
    async login(req, reply) {
      try {
        await throttle.check(req.ip);
        try {
          const session = await login(ctx.database.db, ctx.config.publicUrl, req.body.email, req.body.password);
          await throttle.succeeded(req.ip);
          return session;
        } catch (err) {
          if (err instanceof HttpError && err.statusCode === 401) await throttle.failed(req.ip);
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
