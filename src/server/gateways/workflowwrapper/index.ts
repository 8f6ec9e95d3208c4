/** workflowwrapper gateway handlers (openapi/workflowwrapper.yaml): workflows saved and archived as jobs, runs. */
import type { operations } from '../../../../generated/types/workflowwrapper.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { countWorkflows, disableWorkflow, listRuns, listWorkflows, queueWorkflowArchive, queueWorkflowSave } from '../../core/workflows/index.ts';

/** workflowWrapperHandlers builds the workflowwrapper gateway's handlers over one app context. */
export function workflowWrapperHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async listWorkflows(req) {
      return { data: await listWorkflows(query, scope(req).id, req.query) };
    },
    async countWorkflows(req) {
      return { num_workflows: await countWorkflows(query, scope(req).id, req.query) };
    },
    async saveWorkflow(req) {
      return { data: await queueWorkflowSave(ctx, scope(req).id, req.body), errors: [] };
    },
    async archiveWorkflow(req) {
      return queueWorkflowArchive(ctx, scope(req).id, req.params.id);
    },
    async disableWorkflow(req) {
      return { data: await disableWorkflow(query, scope(req).id, req.params.id), errors: [] };
    },
    async listWorkflowRuns(req) {
      return {
        ...(await listRuns(query, scope(req).id, {
          workflowId: req.params.id,
          contactId: req.query.contact_id,
          limit: req.query.limit,
          offset: req.query.offset,
        })),
        errors: [],
      };
    },
    async listContactRuns(req) {
      return { ...(await listRuns(query, scope(req).id, { contactId: req.query.contact_id, limit: req.query.limit, offset: req.query.offset })), errors: [] };
    },
  };
}
