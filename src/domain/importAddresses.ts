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

/**
 * FirstRows remembers, for every address of one import, its first accepted row: a Map from the address's key to the
 * row's line, and the address as written only where it differs from the key (most files write addresses in lower
 * case). Exact: two addresses are the same only when their keys are equal.
 */
export class FirstRows {
  private readonly lines = new Map<string, number | { line: number; written: string }>();

  /** How many addresses are remembered. */
  get size(): number {
    return this.lines.size;
  }

  /**
   * see records accepted row `line` with address `email` (rows in file order) and says whether it is its address's
   * first row, a repeat written the same way, or a repeat in another letter case (to be merged, not applied). `key`
   * is addressKey(email), for a caller that has it already. Throws RangeError for a line below 1.
   */
  see(email: string, line: number, key = addressKey(email)): AddressSeen {
    if (!(line >= 1)) throw new RangeError(`line must be 1 or more, not ${line}`);
    const first = this.lines.get(key);
    if (first === undefined) {
      this.lines.set(key, email === key ? line : { line, written: email });
      return { kind: 'first' };
    }
    const firstLine = typeof first === 'number' ? first : first.line;
    const written = typeof first === 'number' ? key : first.written;
    return written === email ? { kind: 'same', firstLine } : { kind: 'merged', firstLine };
  }
}
