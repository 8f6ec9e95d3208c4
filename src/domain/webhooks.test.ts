import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isWebhookEventType, retryWaitS, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_TYPE } from './webhooks.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('webhook event types', () => {
  it('are exactly the contract’s WebhookEventType enum, in its order', () => {
    const spec = JSON.parse(readFileSync(path.join(ROOT, 'generated/openapi/webhooks.json'), 'utf8'));
    expect(WEBHOOK_EVENT_TYPES.map((t) => t.type)).toEqual(spec.components.schemas.WebhookEventType.enum);
  });

  it('are each mapped by the database to the event they report', () => {
    const sql = readFileSync(path.join(ROOT, 'src/server/core/webhooks/sql/webhooks.sql'), 'utf8');
    for (const t of WEBHOOK_EVENT_TYPES.filter((x) => x.event)) expect(sql).toContain(`WHEN '${t.event}' THEN '${t.type}'`);
  });

  it('knows its own types only; the test type is not one an endpoint listens to', () => {
    expect(isWebhookEventType('email.opened')).toBe(true);
    expect(isWebhookEventType('email.exploded')).toBe(false);
    expect(isWebhookEventType(WEBHOOK_TEST_TYPE)).toBe(false);
  });
});

describe('retryWaitS', () => {
  const schedule = [5, 300, 1800];
  it('waits the schedule’s entry after each failed attempt, then repeats the last', () => {
    expect([1, 2, 3, 4, 9].map((n) => retryWaitS(schedule, n))).toEqual([5, 300, 1800, 1800, 1800]);
  });
  it('falls back to a minute with an empty schedule', () => {
    expect(retryWaitS([], 1)).toBe(60);
  });
});
