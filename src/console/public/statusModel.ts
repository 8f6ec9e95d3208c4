/**
 * What the status page says, from the server's own health answers (src/server/plugins/health.ts): GET /healthz (the
 * process serves HTTP) and GET /readyz (200 {ready: true}, or 503 {errors: ["database: …", "queue: …", "migrations: …"]}).
 */

/** What one health endpoint answered: its HTTP status and body, or null when it could not be reached. */
export type Answer = { status: number; body: unknown } | null;

export type Overall = 'operational' | 'degraded' | 'down';

/** One part of the service and whether it works, with the server's own words when it does not. */
export interface Component {
  name: string;
  ok: boolean;
  problem?: string;
}

export interface Status {
  overall: Overall;
  /** The one-line summary shown at the top. */
  headline: string;
  components: Component[];
}

/** The parts /readyz checks, by the prefix of its error messages. */
const CHECKED: Array<{ prefix: string; name: string }> = [
  { prefix: 'database', name: 'Database' },
  { prefix: 'queue', name: 'Job queue (scheduled blasts, imports, workflows)' },
  { prefix: 'migrations', name: 'Database schema' },
];

const WEB = 'Website, console and API';

/** statusOf turns the two answers into the page's status. */
export function statusOf(health: Answer, ready: Answer): Status {
  if (!health || health.status !== 200) {
    return {
      overall: 'down',
      headline: 'Major outage: the service is not answering',
      components: [
        { name: WEB, ok: false, problem: health ? `answered HTTP ${health.status}` : 'no answer' },
        ...CHECKED.map((c) => ({ name: c.name, ok: false, problem: 'unknown while the service is not answering' })),
      ],
    };
  }
  const errors =
    ready && ready.status !== 200 && ready.body && typeof ready.body === 'object' && Array.isArray((ready.body as { errors?: unknown }).errors)
      ? ((ready.body as { errors: unknown[] }).errors.filter((e) => typeof e === 'string') as string[])
      : [];
  const readyOk = !!ready && ready.status === 200;
  const components: Component[] = [
    { name: WEB, ok: true },
    ...CHECKED.map(({ prefix, name }) => {
      const problem = errors.find((e) => e.startsWith(`${prefix}:`));
      if (problem) return { name, ok: false, problem: problem.slice(prefix.length + 1).trim() };
      // Not ready for a reason no part names (no answer, another status): every part is unknown, none is claimed well.
      if (!readyOk && errors.length === 0)
        return { name, ok: false, problem: ready ? `readiness check answered HTTP ${ready.status}` : 'readiness check did not answer' };
      return { name, ok: true };
    }),
  ];
  if (components.every((c) => c.ok)) return { overall: 'operational', headline: 'All systems operational', components };
  return { overall: 'degraded', headline: 'Degraded: some parts of the service are not working', components };
}
