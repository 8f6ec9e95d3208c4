/**
 * Real-world inputs that tests and benches read, kept in tests/fixtures/ as they were published (tests/fixtures/README.md
 * says where each comes from and under which licence).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** FIXTURES is the absolute path of tests/fixtures/. */
export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');

/**
 * fixturePath returns the absolute path of `relative` (e.g. `email-templates/leemunroe/email-inlined.html`) under
 * tests/fixtures/, and throws when the file is missing, so a test fails instead of passing on a stand-in.
 */
export function fixturePath(relative: string): string {
  const at = path.resolve(FIXTURES, relative);
  if (!existsSync(at)) throw new Error(`Fixture tests/fixtures/${relative} is missing (tests/fixtures/README.md lists the fixtures)`);
  return at;
}

/** readFixture reads one fixture under tests/fixtures/ as UTF-8; it throws when the file is missing (see fixturePath). */
export function readFixture(relative: string): string {
  return readFileSync(fixturePath(relative), 'utf8');
}
