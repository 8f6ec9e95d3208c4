/**
 * SentRecorder's group commit (docs/architecture.md §5): marks that arrive within the window share one
 * statement; marks that arrive while a statement is in flight wait for it and then share the next one (not one
 * statement each); a statement carries at most MAX_MARKS; a failed statement rejects exactly its own marks. The query
 * function records statements and answers when the test says so, so the timing is the test's, not the machine's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SentRecorder } from './sentRecorder.ts';
import type { QueryFn } from '../../db/client.ts';

interface Call {
  ids: string[];
  finish: (err?: Error) => void;
}

/** statements returns a QueryFn that records each statement's outbox ids and waits for finish() to answer it. */
function statements(): { query: QueryFn; calls: Call[] } {
  const calls: Call[] = [];
  const query = ((sql: string, params: unknown[]) => {
    expect(sql).toBe(SentRecorder.STATEMENT);
    return new Promise((resolve, reject) => {
      calls.push({ ids: params[0] as string[], finish: (err) => (err ? reject(err) : resolve([])) });
    });
  }) as QueryFn;
  return { query, calls };
}

const flushMicrotasks = () => vi.advanceTimersByTimeAsync(0);

describe('SentRecorder', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes the marks of one window in one statement, no sooner than the window', async () => {
    const { query, calls } = statements();
    const recorder = new SentRecorder(query, 20);
    const done = [1, 2, 3].map((id) => recorder.markSent(id, 'token', `loc-${id}`, {}));
    await vi.advanceTimersByTimeAsync(19);
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.ids)).toEqual([['1', '2', '3']]);
    calls[0].finish();
    await expect(Promise.all(done)).resolves.toBeDefined();
  });

  it('gathers the marks that arrive during a statement into the next one, written when the oldest has waited its window', async () => {
    const { query, calls } = statements();
    const recorder = new SentRecorder(query, 20);
    void recorder.markSent(1, 't', 'l', {});
    await vi.advanceTimersByTimeAsync(20);
    expect(calls).toHaveLength(1);
    // Three marks arrive while the first statement is in flight (at 25, 30 and 35 ms).
    const later: Promise<void>[] = [];
    for (const id of [2, 3, 4]) {
      await vi.advanceTimersByTimeAsync(5);
      later.push(recorder.markSent(id, 't', 'l', {}));
    }
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20); // 55 ms: the statement is still running; the waiting marks stay waiting
    expect(calls).toHaveLength(1);
    calls[0].finish();
    await flushMicrotasks();
    // The oldest waiting mark (25 ms) has waited 30 ms: all three go at once, in one statement.
    expect(calls.map((c) => c.ids)).toEqual([['1'], ['2', '3', '4']]);
    calls[1].finish();
    await expect(Promise.all(later)).resolves.toBeDefined();
  });

  it("after a short statement, waits out the rest of the oldest mark's window", async () => {
    const { query, calls } = statements();
    const recorder = new SentRecorder(query, 20);
    void recorder.markSent(1, 't', 'l', {});
    await vi.advanceTimersByTimeAsync(20);
    void recorder.markSent(2, 't', 'l', {}); // arrives at 20 ms, during the statement
    await vi.advanceTimersByTimeAsync(2);
    calls[0].finish();
    await flushMicrotasks();
    expect(calls).toHaveLength(1); // mark 2 has waited 2 ms of its 20
    await vi.advanceTimersByTimeAsync(17);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.ids)).toEqual([['1'], ['2']]);
  });

  it('writes MAX_MARKS at once without waiting, and no statement carries more', async () => {
    const { query, calls } = statements();
    const recorder = new SentRecorder(query, 20);
    const n = SentRecorder.MAX_MARKS + 5;
    for (let id = 1; id <= n; id++) void recorder.markSent(id, 't', 'l', {});
    await flushMicrotasks();
    expect(calls).toHaveLength(1);
    expect(calls[0].ids).toHaveLength(SentRecorder.MAX_MARKS);
    calls[0].finish();
    await vi.advanceTimersByTimeAsync(20);
    expect(calls.map((c) => c.ids.length)).toEqual([SentRecorder.MAX_MARKS, 5]);
  });

  it('rejects exactly the marks of a failed statement; later marks are written as usual', async () => {
    const { query, calls } = statements();
    const recorder = new SentRecorder(query, 20);
    const failed = [recorder.markSent(1, 't', 'l', {}), recorder.markSent(2, 't', 'l', {})];
    await vi.advanceTimersByTimeAsync(20);
    const next = recorder.markSent(3, 't', 'l', {});
    calls[0].finish(new Error('connection lost'));
    for (const p of failed) await expect(p).rejects.toThrow('connection lost');
    await vi.advanceTimersByTimeAsync(20);
    expect(calls.map((c) => c.ids)).toEqual([['1', '2'], ['3']]);
    calls[1].finish();
    await expect(next).resolves.toBeUndefined();
  });
});
