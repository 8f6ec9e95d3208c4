/** user gateway handlers (openapi/user.yaml): thin wrappers over ./service.ts. */
import type { operations } from '../../../../generated/types/user.gen.ts';
import type { AppContext } from '../../context.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { contactUploadUrl } from '../../core/contacts/upload.ts';
import { archiveContactsByEmail, countContacts, listContacts, upsertContacts } from '../../core/contacts/index.ts';
import type { QueryFn } from '../../db/client.ts';
import { eraseContacts } from '../../core/privacy/erasure.ts';
import { erasureKey } from '../../core/privacy/key.ts';
import { exportContact } from '../../core/privacy/export.ts';

/** userHandlers builds the user gateway's handlers over one app context. */
export function userHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  return {
    async listUsers(req) {
      return { data: await listContacts(db, scope(req).id, req.query) };
    },
    async countUsers(req) {
      return { num_users: await countContacts(db, scope(req).id, req.query) };
    },
    async upsertUsers(req) {
      // Contacts created or updated enter the project's user_upserted workflows in the same statement.
      const { data, entered, erased } = await upsertContacts(
        ctx.database.query.bind(ctx.database) as QueryFn,
        scope(req).id,
        req.body.users,
        erasureKey(ctx.config),
      );
      if (entered) ctx.notifyWorkflows();
      return { data, erased };
    },
    async getContactUploadUrl(req) {
      const { consent, consent_by } = req.query;
      return {
        data: await contactUploadUrl(ctx, scope(req).id, req.query.filename, req.query.type, 'contacts', undefined, req.query.columns, {
          text: consent,
          by: consent_by,
        }),
      };
    },
    async eraseContacts(req) {
      return { data: await eraseContacts(ctx, scope(req).id, req.body, 'api key') };
    },
    async exportContact(req, reply) {
      reply.header('content-disposition', `attachment; filename="contact-${req.params.id}.json"`);
      return exportContact(ctx.database, scope(req).id, req.params.id, 'api key');
    },
    async archiveUsers(req) {
      const { map, errors } = await archiveContactsByEmail(db, scope(req).id, req.query.emails);
      return { archived_email_to_user_map: map, errors };
    },
  };
}
