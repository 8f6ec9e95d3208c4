/**
 * The sent mark (spec part 1 §3 email_send_result_success; docs/architecture.md "Sending a blast, exactly once"):
 * SentRecorder writes accepted messages as sent with their events, in groups.
 */
import type { QueryFn } from '../../db/client.ts';
import { MARK_SENT } from './queries.ts';

/** A daily_sends count a send adds to when it is recorded (core/sending/dailyCaps.ts): its key and UTC day (YYYY-MM-DD). */
export interface DailyCount {
  key: string;
  day: string;
}

interface SentMark {
  id: string | number;
  token: string;
  location: string;
  json: object;
  daily?: DailyCount;
  done: () => void;
  fail: (err: unknown) => void;
  at: number;
}

/**
 * SentRecorder records accepted messages as sent, in the manner of a group commit: a mark waits at most `windowMs`
 * from its arrival (or until MAX_MARKS are waiting), then is written with the others in one statement (outbox row →
 * sent, plus its email_send_result_success event), fenced by each row's claim token. One statement is in flight at a
 * time; marks that arrive while it runs go into the next, written when the oldest of them has waited its window, so a
 * statement carries about rate × window marks instead of small statements queueing behind each other. Batching keeps
 * the database off the per-message path: on PGlite a mark written alone costs about 1 ms, one of 12 about 190 µs and
 * one of 36 about 120 µs (`npx tsx bench/marks.bench.ts`; docs/bench-log.md). The price is that the window
 * between the relay's 250 and the commit is up to `windowMs` plus one statement instead of one round trip.
 */
export class SentRecorder {
  /** Most marks written by one statement. */
  static readonly MAX_MARKS = 200;
  /** The statement (./queries.ts MARK_SENT): $1 outbox ids, $2 their claim tokens, $3 locations, $4 event json, $5-$6 daily counts, one element per mark. */
  static readonly STATEMENT = MARK_SENT;
  private pending: SentMark[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  private writing = false;

  constructor(
    private readonly query: QueryFn,
    private readonly windowMs: number,
  ) {}

  /**
   * markSent is the one way an email becomes sent (what counts as a send: spec part 1 §3 email_send_result_success):
   * resolves once the row is recorded as sent, with its event, under claim `token` (or rejects when the statement
   * failed; a row whose claim was lost is left as it is). `location` is the stored copy, `json` the event's json,
   * `daily` the daily_sends count the send adds one to, in the same statement (only if the row is marked).
   */
  markSent(id: string | number, token: string, location: string, json: object, daily?: DailyCount): Promise<void> {
    return new Promise((done, fail) => {
      this.pending.push({ id, token, location, json, daily, done, fail, at: performance.now() });
      this.schedule();
    });
  }

  /** schedule writes the waiting marks when the oldest has waited `windowMs`, or at once when MAX_MARKS are waiting. */
  private schedule(): void {
    if (this.writing || !this.pending.length) return; // the statement in flight schedules the rest when it ends
    const wait = this.pending[0].at + this.windowMs - performance.now();
    if (this.pending.length >= SentRecorder.MAX_MARKS || wait <= 0) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), wait);
  }

  private async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || !this.pending.length) return;
    const batch = this.pending.splice(0, SentRecorder.MAX_MARKS);
    this.writing = true;
    try {
      await this.query(SentRecorder.STATEMENT, [
        batch.map((m) => String(m.id)),
        batch.map((m) => m.token),
        batch.map((m) => m.location),
        batch.map((m) => JSON.stringify(m.json)),
        batch.map((m) => m.daily?.key ?? null),
        batch.map((m) => m.daily?.day ?? null),
      ]);
      for (const m of batch) m.done();
    } catch (err) {
      for (const m of batch) m.fail(err);
    } finally {
      this.writing = false;
    }
    this.schedule();
  }
}
