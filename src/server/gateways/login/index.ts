/** login gateway (openapi/login.yaml): email + password → session. */
import type { operations } from '../../../../generated/types/login.gen.ts';
import type { AppContext } from '../../context.ts';
import { login } from '../../accounts.ts';
import type { GatewayHandlers } from '../types.ts';

/** loginHandlers builds the login gateway's handlers over one app context. */
export function loginHandlers(ctx: AppContext): GatewayHandlers<operations> {
  return {
    async login(req) { return login(ctx.database.db, ctx.config.publicUrl, req.body.email, req.body.password); },
  };
}
