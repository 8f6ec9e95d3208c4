/** template gateway handlers (openapi/template.yaml). */
import type { operations } from '../../../../generated/types/template.gen.ts';
import type { AppContext } from '../../context.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { templateImageUploadUrl } from '../../plugins/uploads.ts';
import { archiveTemplates, countTemplates, listTemplates, saveTemplates } from '../../core/templates/index.ts';
import { checkTemplate } from '../../core/templates/checks.ts';

/** templateHandlers builds the template gateway's handlers over one app context. */
export function templateHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  return {
    async listTemplates(req) {
      return { data: await listTemplates(db, scope(req).id, req.query) };
    },
    async countTemplates(req) {
      return { num_templates: await countTemplates(db, scope(req).id, req.query.ids, req.query.search_value) };
    },
    async saveTemplates(req) {
      return { data: await saveTemplates(db, scope(req).id, req.body.templates) };
    },
    async getTemplateImageUploadUrl(req) {
      return { data: await templateImageUploadUrl(ctx, scope(req).id, req.query.filename, req.query.type) };
    },
    async checkTemplate(req) {
      return { data: await checkTemplate(ctx, scope(req).id, req.params.id) };
    },
    async archiveTemplates(req) {
      return archiveTemplates(db, scope(req).id, req.params.ids);
    },
  };
}
