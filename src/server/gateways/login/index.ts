/**
 * login gateway (openapi/login.yaml): email + password → session, with failed attempts rate-limited per client
 * address and per account in the database (loginThrottle.ts); and the demo login (demo.ts) for /demo-login.
 */
import type { operations } from '../../../../generated/types/login.gen.ts';
import type { AppContext } from '../../context.ts';
import { login } from '../../core/accounts/index.ts';
import { demoLogin } from '../../core/accounts/demo.ts';
import { LoginThrottle } from '../../core/accounts/loginThrottle.ts';
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
      return throttle.attempt(req.ip, req.body.email, reply, () => login(ctx.database.db, ctx.config.publicUrl, req.body.email, req.body.password));
    },
    async demoLogin(req) {
      return demoLogin(ctx.database.db, ctx.config.publicUrl, req.body.email, req.ip);
    },
  };
}
