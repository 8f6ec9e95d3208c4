/**
 * The command line's way in to a running server. One process at a time may open an embedded (PGlite)
 * database (db/dataDirLock.ts), so while the server holds DATA_DIR, `npm run admin` hands its command to the server:
 * at start the server writes DATA_DIR/operator.json — its loopback URL and a random secret — readable only by its OS
 * user (mode 0600), and answers POST /api/operator/cli only to 127.0.0.1/::1 with that secret (x-operator-secret).
 * Whoever can read the file can already read the database folder beside it, so the secret grants nothing more.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What DATA_DIR/operator.json holds. */
export interface OperatorEndpoint {
  /** The server's loopback URL, e.g. http://127.0.0.1:3000. */
  url: string;
  /** 32 random bytes, base64url. */
  secret: string;
  /** The server's process id (for the message when it does not answer). */
  pid: number;
}

const FILE = 'operator.json';

/**
 * publishOperatorEndpoint writes DATA_DIR/operator.json (mode 0600) for a server listening on `port` and returns the
 * secret and a remove() that deletes the file (only if it is still this server's). Throws the file system's error.
 */
export function publishOperatorEndpoint(dataDir: string, port: number): { secret: string; remove(): void } {
  const file = path.join(dataDir, FILE);
  const endpoint: OperatorEndpoint = { url: `http://127.0.0.1:${port}`, secret: randomBytes(32).toString('base64url'), pid: process.pid };
  writeFileSync(file, JSON.stringify(endpoint), { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write
  return {
    secret: endpoint.secret,
    remove() {
      if (readOperatorEndpoint(dataDir)?.secret === endpoint.secret) rmSync(file, { force: true });
    },
  };
}

/** readOperatorEndpoint reads DATA_DIR/operator.json, or undefined when there is none (or it is not readable). */
export function readOperatorEndpoint(dataDir: string): OperatorEndpoint | undefined {
  try {
    const e = JSON.parse(readFileSync(path.join(dataDir, FILE), 'utf8')) as OperatorEndpoint;
    return typeof e.url === 'string' && typeof e.secret === 'string' ? e : undefined;
  } catch {
    return undefined;
  }
}

/** secretMatches compares a presented secret with the server's in constant time; false when either is missing. */
export function secretMatches(presented: unknown, secret: string | undefined): boolean {
  if (typeof presented !== 'string' || !secret) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** isLoopback says whether a client address is this machine (127.0.0.0/8, ::1, or IPv4-mapped 127.x). */
export function isLoopback(ip: string): boolean {
  return ip === '::1' || /^(::ffff:)?127\./.test(ip);
}
