/** workflow gateway handlers (openapi/workflow.yaml): the editor's check before a save. */
import type { operations } from '../../../../generated/types/workflow.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { BadRequest } from '../../errors.ts';
import { workflowProblems } from '../../core/workflows/index.ts';

/** workflowHandlers builds the workflow gateway's handlers over one app context. */
export function workflowHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async validateWorkflow(req) {
      const { errors } = await workflowProblems(query, scope(req).id, req.body);
      if (errors.length) throw new BadRequest(errors);
      return { valid: true, errors: [] };
    },
  };
}
