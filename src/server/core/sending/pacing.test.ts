/**
 * RelayPacer's hand-out order on a real (in-memory PGlite) relay_pacing row: messages holding a provider's slot
 * (priority) are served before those that arrived earlier, but never take every slot while another message waits
 * (PRIORITY_RUN); and a message's slot always lands in the calendar second it was reserved for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../db/client.ts';
import { RelayPacer } from './pacing.ts';

let db: Database;

beforeAll(async () => {
  db = await openDatabase({ dataDir: 'memory://' });
}, 60_000);

afterAll(async () => {
  await db?.close();
});

describe('RelayPacer', () => {
  it('serves priority messages first, but one other after every four in a row', async () => {
    const pacer = new RelayPacer(db.query.bind(db), 'pacer-order.test', 40);
    const order: string[] = [];
    const wait = (name: string, priority: boolean) =>
      pacer.permit(undefined, undefined, priority).then(() => {
        order.push(name);
      });
    // Two others arrive first, then ten priority messages, all before the first slot is handed out.
    const all = [wait('n1', false), wait('n2', false), ...Array.from({ length: 10 }, (_, i) => wait(`p${i + 1}`, true))];
    await Promise.all(all);
    expect(order).toEqual(['p1', 'p2', 'p3', 'p4', 'n1', 'p5', 'p6', 'p7', 'p8', 'n2', 'p9', 'p10']);
  });

  it('hands each slot out within its own calendar second', async () => {
    const pacer = new RelayPacer(db.query.bind(db), 'pacer-second.test', 20);
    const seconds = new Map<number, number>();
    await Promise.all(
      Array.from({ length: 30 }, () =>
        pacer.permit().then(() => {
          const s = Math.floor(Date.now() / 1000);
          seconds.set(s, (seconds.get(s) ?? 0) + 1);
        }),
      ),
    );
    for (const n of seconds.values()) expect(n).toBeLessThanOrEqual(20);
    expect([...seconds.values()].reduce((a, b) => a + b, 0)).toBe(30);
  });
});
