/**
 * One address on several rows of a contact file (spec part 2 §7 Contacts file upload). Addresses are the same whatever
 * their letter case: the contacts table keeps one live contact per lower(email) (its unique index), and addressKey is
 * that comparison on this side. Within one import:
 * - the first accepted row of an address is applied as written (a new contact keeps its case; a contact that existed
 *   before is updated and keeps its address as stored);
 * - a later row writing the address the same way is applied too, winning for the cells it fills;
 * - a later row writing it in another letter case (yuki@example.com after YUKI@example.com) is merged: it is not
 *   applied, and the import reports it (rows_merged, merged_rows) with the address it was merged into.
 *
 * Pure; the import job (src/server/core/contacts/import.ts) asks FirstRows about each accepted row, in file order.
 */

/** addressKey is an address's case-insensitive identity, as the contacts table compares addresses (lower(email)). */
export function addressKey(email: string): string {
  return email.toLowerCase();
}

/** What FirstRows knows of a row's address: the first accepted row with it, a repeat as written, or another case. */
export type AddressSeen = { kind: 'first' } | { kind: 'same'; firstLine: number } | { kind: 'merged'; firstLine: number };

/** One row merged into an earlier row of the same address (openapi/joblog.yaml BulkUploadStatus merged_rows). */
export interface MergedRow {
  /** The merged row's line (CSV) or row (XLSX) number, the header being 1. */
  line: number;
  /** The email column as named in the header. */
  column: string;
  /** mergedReason: in words. */
  reason: string;
  /** The address as written on the merged row. */
  email: string;
  /** The address of the contact it was merged into, as stored; null if no live contact has it any more. */
  merged_into: string | null;
  /** The line of the first row with the address, the one kept. */
  first_line: number;
}

/** mergedReason says why a row was not applied: "merged into YUKI@example.com (line 2): the same address in another letter case, …". */
export function mergedReason(firstLine: number, mergedInto: string | null): string {
  const into = mergedInto === null ? `the contact of line ${firstLine}` : `${mergedInto} (line ${firstLine})`;
  return `merged into ${into}: the same address in another letter case, so this row's values were not applied`;
}

/** The first slot count of a FirstRows table (a power of two); it doubles when three quarters are used. */
const INITIAL_SLOTS = 1 << 12;

/**
 * FirstRows remembers, for every address of one import, the first accepted row: a 64-bit fingerprint of the address's
 * key, a 32-bit fingerprint of the address as written, and the row's line, in typed arrays (an open-addressing table,
 * 16 bytes a slot, at most three quarters full: about 32 MB for a million addresses, against some 76 MB for a Map of
 * the key strings, and nothing for the garbage collector to walk). Two distinct addresses share a key fingerprint
 * with a chance of about n²/2⁶⁵ (3·10⁻⁸ for a million addresses); a repeat in another case whose written form
 * shares the first row's fingerprint (2⁻³² a pair) is taken as written the same way and applied.
 */
export class FirstRows {
  private slots = INITIAL_SLOTS;
  private keyHigh = new Uint32Array(INITIAL_SLOTS);
  private keyLow = new Uint32Array(INITIAL_SLOTS);
  private form = new Uint32Array(INITIAL_SLOTS);
  /** The first row's line; 0 marks an empty slot (lines start at 1). */
  private line = new Int32Array(INITIAL_SLOTS);
  private used = 0;

  /** How many addresses are remembered. */
  get size(): number {
    return this.used;
  }

  /**
   * see records accepted row `line` with address `email` (rows in file order) and says whether it is its address's
   * first row, a repeat written the same way, or a repeat in another letter case (to be merged, not applied). `key`
   * is addressKey(email), for a caller that has it already.
   */
  see(email: string, line: number, key = addressKey(email)): AddressSeen {
    if (!(line >= 1)) throw new RangeError(`line must be 1 or more, not ${line}`);
    hashKey(key);
    const high = hashHigh;
    const low = hashLow;
    const form = fnv1a(email);
    const mask = this.slots - 1;
    let i = low & mask;
    while (this.line[i] !== 0) {
      if (this.keyHigh[i] === high && this.keyLow[i] === low)
        return this.form[i] === form ? { kind: 'same', firstLine: this.line[i] } : { kind: 'merged', firstLine: this.line[i] };
      i = (i + 1) & mask;
    }
    this.keyHigh[i] = high;
    this.keyLow[i] = low;
    this.form[i] = form;
    this.line[i] = line;
    this.used++;
    if (this.used * 4 > this.slots * 3) this.grow();
    return { kind: 'first' };
  }

  /** grow doubles the table and puts every remembered address in its slot of the larger one. */
  private grow(): void {
    const { keyHigh, keyLow, form, line } = this;
    this.slots *= 2;
    this.keyHigh = new Uint32Array(this.slots);
    this.keyLow = new Uint32Array(this.slots);
    this.form = new Uint32Array(this.slots);
    this.line = new Int32Array(this.slots);
    const mask = this.slots - 1;
    for (let j = 0; j < line.length; j++) {
      if (line[j] === 0) continue;
      let i = keyLow[j] & mask;
      while (this.line[i] !== 0) i = (i + 1) & mask;
      this.keyHigh[i] = keyHigh[j];
      this.keyLow[i] = keyLow[j];
      this.form[i] = form[j];
      this.line[i] = line[j];
    }
  }
}

/** The two halves of the last hashKey, kept in module variables so a row allocates nothing. */
let hashHigh = 0;
let hashLow = 0;

/** hashKey sets hashHigh and hashLow to a 64-bit hash of `s` (cyrb53's two 32-bit lanes, both kept whole). */
function hashKey(s: string): void {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  hashHigh = h2 >>> 0;
  hashLow = h1 >>> 0;
}

/** fnv1a is the 32-bit FNV-1a hash of `s`'s UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
