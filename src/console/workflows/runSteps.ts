/**
 * How a run's step reads in the console's Runs panels. A delay (and a delay until) is executed when the contact
 * reaches it — it schedules the next step, with the outcome "waits until <ISO instant>" — so while that instant is
 * ahead the step is shown as waiting, "waiting until <date>", not as done; once it has passed, "waited until <date>".
 */
import type { components } from '../../../generated/types/workflowwrapper.gen';
import { formatDateTime } from '../dates';

type Step = components['schemas']['WorkflowStep'];

/** The outcome a waiting step records (core/workflows/nodes.ts): "waits until 2026-11-29T08:00:00.000Z". */
const WAITS_UNTIL = /^waits until (\S+)$/;

/** describeStep returns the status and outcome to show for `step` at `now` (ms since the epoch), dates in the user's locale. */
export function describeStep(step: Step, now: number, format: (iso: string) => string = formatDateTime): { status: string; outcome: string } {
  const until = WAITS_UNTIL.exec(step.outcome ?? '')?.[1];
  if (until && step.status === 'done') {
    const at = Date.parse(until);
    if (at > now) return { status: 'waiting', outcome: `waiting until ${format(until)}` };
    return { status: 'done', outcome: `waited until ${format(until)}` };
  }
  return { status: step.status, outcome: step.outcome ?? '' };
}
