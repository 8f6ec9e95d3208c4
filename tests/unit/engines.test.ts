/**
 * Node 20 is the runtime here. Every installed package —
 * direct or transitive, top-level or nested under another's node_modules — must declare an `engines.node` range that
 * the running Node satisfies, or none. A dependency upgrade that brings in a Node 22-only package fails here rather
 * than as an EBADENGINE warning nobody reads; pin a version that accepts Node 20 (package.json `overrides` for a
 * transitive one) instead.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** installedPackages walks node_modules (scopes and nested node_modules included): [name@version, engines.node?][]. */
function installedPackages(dir: string, out: Array<[string, string | undefined]> = []): Array<[string, string | undefined]> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const at = path.join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      installedPackages(at, out);
      continue;
    }
    const manifest = path.join(at, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string; engines?: { node?: unknown } };
      const range = pkg.engines?.node;
      out.push([`${pkg.name ?? entry.name}@${pkg.version ?? '?'}`, typeof range === 'string' ? range : undefined]);
    }
    const nested = path.join(at, 'node_modules');
    if (existsSync(nested)) installedPackages(nested, out);
  }
  return out;
}

describe('installed packages and the Node runtime', () => {
  const packages = installedPackages(path.join(ROOT, 'node_modules'));

  it('finds the installed tree (the walk itself works)', () => {
    expect(packages.length).toBeGreaterThan(500);
    expect(packages.some(([id]) => id.startsWith('fastify@'))).toBe(true);
  });

  it(`every engines.node range accepts this Node (${process.version})`, () => {
    const refused = packages
      .filter(([, range]) => range && !semver.satisfies(process.version, range, { includePrerelease: true }))
      .map(([id, range]) => `${id} wants node ${range}`);
    expect(refused).toEqual([]);
  });

  it("the project's own engines range accepts this Node", () => {
    const own = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(semver.satisfies(process.version, own.engines.node)).toBe(true);
  });
});
