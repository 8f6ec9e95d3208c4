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
import vm from 'node:vm';

export const HEAP_GROWING_PERCENT = 50;

let capped = false;

/**
 * capHeapGrowth sets `--heap-growing-percent` to HEAP_GROWING_PERCENT for this process and runs one full collection
 * (tens of ms, once per process; later calls do nothing). V8 sets the next collection's limit at the end of each full
 * collection, so without one now the first collection under load would still come at the limit set with the old
 * factor: the receiver's peak RSS for 10,000 DSNs was 307–318 MB with the first busy collection at about 150 MB of
 * heap, 232 MB when a collection ran first (`npm run bench:feedback`, docs/bench-log.md 2026-11-28). `gc` is reached
 * through a new context, so the process's own global object does not get it.
 */
export function capHeapGrowth(): void {
  if (capped) return;
  capped = true;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}
