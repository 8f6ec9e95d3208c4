/**
 * The erasure key and address tombstones' hashes (core/privacy/erasure.ts). A tombstone is the HMAC-SHA256 (RFC 2104)
 * of an address, normalised, under an install secret: ERASURE_KEY when set, else a 32-byte key generated once into
 * `DATA_DIR/erasure.key` (mode 0600). Without the key a tombstone cannot be tested against a list of addresses; with
 * it, the service can tell that an address it is handed was erased. Processes that share one PostgreSQL must share
 * the key (set ERASURE_KEY, as they share STORAGE_URL), or one would not recognise the other's tombstones.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.ts';

const keys = new Map<string, string>();

/**
 * erasureKey returns the install's erasure key: `config.erasureKey` (ERASURE_KEY), else the one in
 * `DATA_DIR/erasure.key`, generated there when missing (two processes generating at once both end up reading the
 * first one written). Throws when DATA_DIR cannot be written or read.
 */
export function erasureKey(config: Pick<Config, 'erasureKey' | 'dataDir'>): string {
  if (config.erasureKey) return config.erasureKey;
  const file = path.join(config.dataDir, 'erasure.key');
  let key = keys.get(file);
  if (key) return key;
  mkdirSync(config.dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  key = readFileSync(file, 'utf8').trim();
  if (!key) throw new Error(`${file} is empty: remove it to generate a new erasure key, or set ERASURE_KEY`);
  keys.set(file, key);
  return key;
}

/** normalisedAddress: an address as tombstones compare it (trimmed, lower case, Unicode NFC). */
export function normalisedAddress(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

/** addressHash: the tombstone of `email` under `key`, hex (HMAC-SHA256 of normalisedAddress). */
export function addressHash(key: string, email: string): string {
  return createHmac('sha256', key).update(normalisedAddress(email)).digest('hex');
}

/** withAddressHashes returns `rows` each with its address's tombstone hash (`address_hash`), for the contact upsert. */
export function withAddressHashes<T extends { email: string }>(key: string, rows: T[]): Array<T & { address_hash: string }> {
  return rows.map((r) => ({ ...r, address_hash: addressHash(key, r.email) }));
}
