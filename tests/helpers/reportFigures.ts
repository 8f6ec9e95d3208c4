/**
 * reportFigures reads the reporting endpoints a customer sees (the cache of each cleared first), for tests that check
 * an operation leaves every figure as it was (erasure, retention). `call` is the harness's call with the tenant's key.
 */
import type { Json } from './json.ts';

/** The reports read by default: figures over all time and over the last day and month. */
export const REPORT_FIGURES = ['quickstats', 'sendslast24hours', 'sendslast31days', 'mostclickedlinks', 'opensbysource', 'mostopenedemails'];

/** reportFigures returns each report's body by name; throws when one does not answer 200. */
export async function reportFigures(
  call: (method: string, url: string) => Promise<{ status: number; body: Json }>,
  names: readonly string[] = REPORT_FIGURES,
): Promise<Record<string, Json>> {
  const out: Record<string, Json> = {};
  for (const name of names) {
    await call('GET', `/api/reporting/clearcache_${name}`);
    const res = await call('GET', `/api/reporting/${name}`);
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
    out[name] = res.body;
  }
  return out;
}
