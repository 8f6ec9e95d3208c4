import { describe, expect, it } from 'vitest';
import { statusOf } from './statusModel.ts';

const up = { status: 200, body: { ok: true, database: 'pglite' } };

describe('statusOf', () => {
  it('says all systems operational when /readyz answers ready', () => {
    const s = statusOf(up, { status: 200, body: { ready: true } });
    expect(s.overall).toBe('operational');
    expect(s.headline).toBe('All systems operational');
    expect(s.components.every((c) => c.ok)).toBe(true);
  });

  it('names the part /readyz reports, in its words, as degraded', () => {
    const s = statusOf(up, { status: 503, body: { errors: ['queue: cannot read pg-boss’s schema (boom)'] } });
    expect(s.overall).toBe('degraded');
    expect(s.components.filter((c) => !c.ok)).toEqual([
      { name: 'Job queue (scheduled blasts, imports, workflows)', ok: false, problem: 'cannot read pg-boss’s schema (boom)' },
    ]);
    expect(s.components.find((c) => c.name === 'Database')?.ok).toBe(true);
  });

  it('claims no part works when the readiness check gives no reason', () => {
    const s = statusOf(up, null);
    expect(s.overall).toBe('degraded');
    expect(s.components.filter((c) => !c.ok)).toHaveLength(3);
  });

  it('is a major outage when the server does not answer', () => {
    expect(statusOf(null, null).overall).toBe('down');
    expect(statusOf({ status: 502, body: null }, null).components[0]).toMatchObject({ ok: false, problem: 'answered HTTP 502' });
  });
});
