/**
 * Sender personas (spec part 2 §3 Sender persona, §5, §7): the from-identities of a project. An address on a
 * registered sending domain typed in another letter case is saved with the registered casing.
 */
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { senderPersonas, sendingDomains } from '../../db/schema.ts';
import { registeredCasing } from '../../../domain/sendingDomain.ts';
import { checkEmail, checkRequired } from '../../../domain/validation.ts';
import { FieldErrors } from '../../errors.ts';
import { isoRequired, orderBy, uuidList } from '../listing.ts';
import type { components, operations } from '../../../../generated/types/senderpersonawrapper.gen.ts';

export type PersonaOut = components['schemas']['SenderPersona'];
type PersonaIn = components['schemas']['SenderPersonaInput'];
type ListQuery = NonNullable<operations['listSenderPersonas']['parameters']['query']>;
type Row = typeof senderPersonas.$inferSelect;

/** toPersona maps a row to the API's SenderPersona. */
export function toPersona(r: Row): PersonaOut {
  return {
    id: r.id,
    email: r.email,
    first_name: r.firstName,
    last_name: r.lastName,
    json: r.json ?? {},
    version: r.version,
    verified_at: r.verifiedAt ? r.verifiedAt.toISOString() : null,
    created_at: isoRequired(r.createdAt),
    updated_at: isoRequired(r.updatedAt),
  };
}

const SORTABLE = {
  email: senderPersonas.email,
  first_name: senderPersonas.firstName,
  last_name: senderPersonas.lastName,
  created_at: senderPersonas.createdAt,
};

function where(projectId: string, ids: string[]) {
  return and(eq(senderPersonas.projectId, projectId), isNull(senderPersonas.archivedAt), ids.length ? inArray(senderPersonas.id, ids) : undefined);
}

/** listPersonas returns one page of the project's sender personas (default newest first). */
export async function listPersonas(db: Db, projectId: string, q: ListQuery): Promise<PersonaOut[]> {
  const rows = await db
    .select()
    .from(senderPersonas)
    .where(where(projectId, uuidList(q.ids, 'ids')))
    .orderBy(...orderBy(q.sort_columns, SORTABLE, 'created_at DESC'), senderPersonas.id)
    .limit(q.limit ?? 10)
    .offset(q.offset ?? 0);
  return rows.map(toPersona);
}

/** countPersonas counts the project's live sender personas. */
export async function countPersonas(db: Db, projectId: string, ids?: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(senderPersonas)
    .where(where(projectId, uuidList(ids, 'ids')));
  return row.n;
}

/**
 * savePersonas validates all inputs (email rules, first name required), then creates or updates them (by id) in one
 * transaction, writing a registered sending domain's letter case into the email. Throws BadRequest naming
 * `sender_personas[i].field`.
 */
/**
 * refuseDuplicateEmails enforces one sender persona per address in a project (saving the same persona
 * twice made two rows, listed twice in the wizard), as Postmark's sender signatures and Brevo's senders do: an address
 * (compared without letter case) used by another persona of the project, or by two new ones of the same request, is a
 * BadRequest naming `sender_personas[i].email`. Saves of one project are serialised by a transaction-scoped advisory
 * lock, so two concurrent requests cannot both add the address.
 */
async function refuseDuplicateEmails(tx: Parameters<Parameters<Db['transaction']>[0]>[0], projectId: string, input: PersonaIn[]): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`sender_personas:${projectId}`}, 0))`);
  const emails = [...new Set(input.map((p) => p.email.trim().toLowerCase()))];
  const taken = await tx
    .select({ id: senderPersonas.id, email: senderPersonas.email })
    .from(senderPersonas)
    .where(and(eq(senderPersonas.projectId, projectId), isNull(senderPersonas.archivedAt), inArray(sql`lower(${senderPersonas.email})`, emails)));
  // Every live holder of each address (a project may hold twins saved before this rule: each can still be saved with
  // its own address, and neither can take another's).
  const holders = new Map<string, Set<string>>();
  for (const r of taken) {
    const key = r.email.toLowerCase();
    if (!holders.has(key)) holders.set(key, new Set());
    holders.get(key)!.add(r.id);
  }
  const errs = new FieldErrors();
  input.forEach((p, i) => {
    const email = p.email.trim().toLowerCase();
    const held = holders.get(email) ?? new Set<string>();
    const others = [...held].filter((id) => id !== p.id);
    if (others.length && !(p.id && held.has(p.id))) errs.add(`sender_personas[${i}].email`, `a sender persona with the email ${p.email.trim()} already exists`);
    // A later item of the request finds this address held by this one.
    held.add(p.id ?? `new:${i}`);
    holders.set(email, held);
  });
  errs.throwIfAny();
}

export async function savePersonas(db: Db, projectId: string, input: PersonaIn[]): Promise<PersonaOut[]> {
  const errs = new FieldErrors();
  input.forEach((p, i) => {
    errs.add(`sender_personas[${i}].email`, checkEmail(p.email));
    errs.add(`sender_personas[${i}].first_name`, checkRequired(p.first_name));
  });
  errs.throwIfAny();
  return db.transaction(async (tx) => {
    const registered = (await tx.select({ domain: sendingDomains.domain }).from(sendingDomains).where(eq(sendingDomains.projectId, projectId))).map(
      (d) => d.domain,
    );
    const ids = input.map((p) => p.id).filter((id): id is string => !!id);
    const existing = new Map(ids.length ? (await tx.select().from(senderPersonas).where(where(projectId, ids))).map((r) => [r.id, r]) : []);
    await refuseDuplicateEmails(tx, projectId, input);
    const out: PersonaOut[] = [];
    for (const [i, p] of input.entries()) {
      const before = p.id ? existing.get(p.id) : undefined;
      // Fields left out of an update keep their values, as contacts do.
      const values = {
        // A domain registered in another letter case is written as registered (spec part 2 §5 Sender persona).
        email: registeredCasing(p.email.trim(), registered).email,
        firstName: p.first_name.trim(),
        lastName: p.last_name === undefined ? (before?.lastName ?? null) : p.last_name,
        json: p.json === undefined ? (before?.json ?? {}) : (p.json ?? {}),
      };
      if (before) {
        // A new address must confirm itself again; a change of letter case only is the same address.
        const moved = before.email.toLowerCase() !== values.email.toLowerCase();
        const [row] = await tx
          .update(senderPersonas)
          .set({ ...values, ...(moved ? { verifiedAt: null } : {}), version: sql`${senderPersonas.version} + 1`, updatedAt: new Date() })
          .where(and(eq(senderPersonas.id, before.id), eq(senderPersonas.projectId, projectId)))
          .returning();
        out.push(toPersona(row));
      } else {
        if (p.id) {
          const [taken] = await tx.select({ id: senderPersonas.id }).from(senderPersonas).where(eq(senderPersonas.id, p.id));
          if (taken) {
            const e = new FieldErrors();
            e.add(`sender_personas[${i}].id`, 'id is already in use');
            e.throwIfAny();
          }
        }
        const [row] = await tx
          .insert(senderPersonas)
          .values({ ...values, projectId, ...(p.id ? { id: p.id } : {}) })
          .returning();
        out.push(toPersona(row));
      }
    }
    return out;
  });
}
