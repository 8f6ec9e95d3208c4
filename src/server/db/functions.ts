/**
 * Database functions (plpgsql): the current definition of each lives once, in the feature that owns it —
 * `src/server/core/<feature>/sql/*.sql`, each a list of `CREATE OR REPLACE FUNCTION` statements — and is applied at
 * every start, after the migrations. Migrations keep the DDL (tables, indexes, triggers); a trigger created by a
 * migration runs whatever definition its function has now. Used by openDatabase (PostgreSQL) and the PGlite thread.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const CORE = path.join(import.meta.dirname, '..', 'core');

/** The advisory lock key that serialises processes applying the definitions to one PostgreSQL database at once. */
export const FUNCTIONS_LOCK_KEY = 7_020_020;

/** functionFiles lists every definition file, `core/<feature>/sql/<name>.sql`, in path order (absolute paths). */
export function functionFiles(): string[] {
  return readdirSync(CORE, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .flatMap((feature) => {
      const dir = path.join(CORE, feature, 'sql');
      try {
        return readdirSync(dir)
          .filter((f) => f.endsWith('.sql'))
          .sort()
          .map((f) => path.join(dir, f));
      } catch {
        return [];
      }
    });
}

/** functionsSql returns every definition as one script (simple-query protocol: several statements, no parameters). */
export function functionsSql(): string {
  return functionFiles()
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}
