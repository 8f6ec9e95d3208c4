/**
 * How far V8 lets a busy process's old generation grow past its live size before the next full collection, in
 * percent (V8's `--heap-growing-percent`: the factor is 1 + this / 100; unset, V8 chooses up to 4× on a large
 * machine). Processes that make short-lived garbage at a steady rate set it once (capHeapGrowth):
 * - the sender promotes about 2 KB of short-lived garbage per email (rows, marks and lookups held while their batch
 *   is in flight), so at 1,000 emails/s an idle worker's 30 MB live heap grew to about 130 MB of mostly garbage
 *   before V8 collected it; at 50 the same blast grew it by 12 MB with no loss of sending rate (`npm run bench:expand`,
 *   docs/bench-log.md 2026-11-27). It applies to the render threads too;
 * - the inbound receiver parses returned mail: peak RSS 336–343 → 314–315 MB for 10,000 DSNs at the same rate
 *   (`npm run bench:feedback`, docs/bench-log.md 2026-11-28).
 */
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/** capHeapGrowth sets `--heap-growing-percent` to HEAP_GROWING_PERCENT for this process (idempotent). */
export function capHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
