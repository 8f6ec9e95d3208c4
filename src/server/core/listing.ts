/**
 * Listing helpers shared by the core's queries and the gateways: sort_columns parsing against a whitelist, id lists,
 * LIKE patterns, and the row → API mappers' timestamps (ISO 8601 UTC). Pure except for drizzle column references;
 * errors are BadRequest (400) naming the field.
 */
import { asc, desc, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { splitList, UUID_RE } from '../../domain/validation.ts';
import { BadRequest } from '../errors.ts';

/**
 * orderBy turns `sort_columns` ("email ASC,created_at DESC"; ASC when omitted) into drizzle order terms using only
 * the `allowed` columns. Falls back to `fallback`. Throws BadRequest naming sort_columns for an unknown column.
 */
export function orderBy(sortColumns: string | undefined, allowed: Record<string, AnyPgColumn | SQL>, fallback: string): SQL[] {
  const terms: SQL[] = [];
  for (const part of splitList(sortColumns || fallback)) {
    const [col, dir = 'ASC'] = part.split(/\s+/);
    const column = allowed[col];
    if (!column) throw new BadRequest([`sort_columns: unknown column ${col}`]);
    terms.push(dir.toUpperCase() === 'DESC' ? desc(column) : asc(column));
  }
  return terms;
}

/**
 * orderSql is orderBy for raw SQL: `sort_columns` ("name ASC,created_at DESC"; ASC when omitted) as an ORDER BY list
 * over the `allowed` SQL expressions (never client text). Falls back to `fallback`. Throws BadRequest naming
 * sort_columns for an unknown column.
 */
export function orderSql(sortColumns: string | undefined, allowed: Record<string, string>, fallback: string): string {
  return splitList(sortColumns || fallback)
    .map((part) => {
      const [col, dir = 'ASC'] = part.split(/\s+/);
      const expr = allowed[col];
      if (!expr) throw new BadRequest([`sort_columns: unknown column ${col}`]);
      return `${expr} ${dir.toUpperCase() === 'DESC' ? 'DESC' : 'ASC'}`;
    })
    .join(', ');
}

/** uuidList splits a comma-separated id list; throws BadRequest naming `field` for a value that is not a UUID. */
export function uuidList(value: string | undefined | null, field: string): string[] {
  const ids = splitList(value);
  const bad = ids.filter((id) => !UUID_RE.test(id));
  if (bad.length) throw new BadRequest(bad.map((id) => `${field}: not a valid id: ${id}`));
  return ids.map((id) => id.toLowerCase());
}

/** iso renders a timestamp as ISO 8601 UTC, or null. */
export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

/** isoRequired renders a non-null timestamp as ISO 8601 UTC. */
export function isoRequired(d: Date): string {
  return d.toISOString();
}

/** likePattern escapes LIKE wildcards so a search is a plain (case-insensitive with ILIKE) substring match. */
export function likePattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
