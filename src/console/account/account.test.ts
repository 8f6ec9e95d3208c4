/** Unit tests of the Events and Notifications helpers (spec part 1 §2 Events / Notifications screens, §3, §4). */
import { describe, expect, it } from 'vitest';
import { emailLocation, formatInUtc, formatWhen, parsedEvent, rawEventJson, redactSensitive, truncateText, type EventRecord } from './eventDetails';
import { jobErrors, jobLabel, jobName, jobStatus, jobToast, shortJobName, type JobLogEntry } from './jobLog';
import { encodeLocation } from '../../domain/location';
import { EVENT } from '../../domain/events.ts';
import { formatDateTime } from '../dates';

const event = (json: Record<string, unknown>, extra: Partial<EventRecord> = {}): EventRecord => ({
  id: '6f1c1a52-3c55-4b55-9d1e-0d7e3b6f6a11',
  name: EVENT.bounce,
  email: 'a@b.example',
  user_id: null,
  emitted_at: '2026-11-22T12:30:05.123Z',
  created_at: '2026-11-22T12:30:05.123Z',
  metric1: null,
  metric2: null,
  metric3: null,
  json,
  ...extra,
});

describe('events helpers', () => {
  it('cuts names at 45 characters with an ellipsis', () => {
    expect(truncateText('x'.repeat(45), 45)).toBe('x'.repeat(45));
    expect(truncateText('x'.repeat(46), 45)).toBe(`${'x'.repeat(45)}…`);
  });

  it('formats instants in the user’s locale and zone with seconds and, for the tooltip, in UTC', () => {
    expect(formatWhen('2026-11-22T12:30:05.123Z')).toBe(formatDateTime('2026-11-22T12:30:05.123Z', { seconds: true }));
    expect(formatWhen(null)).toBe('');
    expect(formatInUtc('2026-11-22T12:30:05.123Z')).toBe(formatDateTime('2026-11-22T12:30:05.123Z', { seconds: true, timeZone: 'UTC' }));
    expect(formatInUtc('2026-11-22T12:30:05.123Z')).toMatch(/2026.*12:30:05.*UTC$/);
    expect(formatInUtc('nonsense')).toBe('nonsense');
  });

  it('finds the email location from json.location, else from bucket and key', () => {
    expect(emailLocation(event({ location: 'abc' }))).toBe('abc');
    expect(emailLocation(event({ bucket: 'sent-emails', key: 'p/1.eml' }))).toBe(encodeLocation('sent-emails', 'p/1.eml'));
    expect(emailLocation(event({}))).toBeUndefined();
  });

  it('parses the details grid in the spec order', () => {
    const rows = parsedEvent(
      event({
        bounce: { bounceType: 'Permanent', bouncedRecipients: [{ diagnosticCode: 'smtp; 550 no such user' }] },
        click: { link: 'https://example.com/a' },
        error_string: 'boom',
        bucketing_error_string: 'disk full',
      }),
    );
    expect(rows).toEqual([
      { field: 'event_name', value: EVENT.bounce },
      { field: 'bounce_type', value: 'Permanent' },
      { field: 'click_link', value: 'https://example.com/a' },
      { field: 'email', value: 'a@b.example' },
      { field: 'error', value: 'boom' },
      { field: 'save_copy_error', value: 'disk full' },
      { field: 'bounce_code', value: 'smtp; 550 no such user' },
      { field: 'occurred', value: formatWhen('2026-11-22T12:30:05.123Z') },
    ]);
    expect(parsedEvent(event({ link: 'https://x.example' })).find((r) => r.field === 'click_link')?.value).toBe('https://x.example');
  });

  it('hides sensitive keys at any depth, in any case', () => {
    const raw = redactSensitive({
      Company_Name: 'Acme',
      projectName: 'main',
      company: 'Acme',
      project: { id: 1 },
      bucket: 'b',
      KEY: 'k',
      password: 'p',
      smtp_password: 'q',
      location: 'YS9i',
      subject: 'Hi',
      nested: [{ bucket: 'b', keep: 1 }, { deeper: { key: 'k', ok: true } }],
    });
    expect(raw).toEqual({ subject: 'Hi', nested: [{ keep: 1 }, { deeper: { ok: true } }] });
    const text = rawEventJson(event({ bucket: 'sent-emails', key: 'x.eml', subject: 'Hello' }));
    expect(text).not.toMatch(/bucket|"key"/);
    expect(text).toContain('"subject": "Hello"');
  });
});

describe('notification helpers', () => {
  it("says an operator's notice as it is, and names the entry by it on the Notifications screen", () => {
    const notice = 'Your account is active: you can now send to anyone';
    const entry = {
      id: 'n1',
      job_name: 'JOB_ACCOUNT_ACTIVATED',
      started_at: '2026-11-27T10:00:00.000Z',
      ended_at: '2026-11-27T10:00:00.000Z',
      success: true,
      start_details: { notice },
      end_details: { notice },
    } as JobLogEntry;
    expect(jobToast(entry)).toBe(notice);
    expect(jobLabel(entry.job_name)).toBe('Account activated');
    expect(jobName(entry)).toBe(notice);
    expect(jobToast({ ...entry, job_name: 'JOB_PROCESS_EMAIL_BLAST', start_details: { name: 'Spring' } })).toBe(
      'Email blast queued for sending (Spring): succeeded',
    );
  });

  const entry = (e: Partial<JobLogEntry>): JobLogEntry => ({
    id: '1',
    job_name: 'JOB_DISTRIBUTE_EMAIL_BLAST',
    started_at: '2026-11-22T12:30:00.000Z',
    ended_at: null,
    success: null,
    start_details: {},
    end_details: null,
    ...e,
  });

  it('labels jobs in words, unknown names too', () => {
    expect(jobLabel('JOB_PROCESS_EMAIL_BLAST')).toBe('Email blast queued for sending');
    expect(jobLabel('JOB_DISTRIBUTE_EMAIL_BLAST')).toBe('Email blast sent');
    expect(jobLabel('JOB_CREATE_WORKFLOW')).toBe('Workflow saved');
    expect(jobLabel('JOB_DELETE_WORKFLOW')).toBe('Workflow archived');
    expect(jobLabel('JOB_PARSE_CONTACT_FILE')).toBe('Contact file import');
    expect(jobLabel('JOB_CREATE_SEGMENT_FROM_FILTERS')).toBe('Segment created from filters');
    expect(jobLabel('JOB_PROCESS_CONTACT_FILE')).toBe('Contact file import');
    expect(jobLabel('JOB_SOMETHING_ELSE')).toBe('Something else');
  });

  it("names a contact import by its file and says a refused row's reason without JSON escapes", () => {
    expect(jobName(entry({ job_name: 'JOB_PARSE_CONTACT_FILE', start_details: { file_name: 'leads.csv', s3_key: 'p/leads-2026.csv' } }))).toBe('leads.csv');
    expect(
      jobErrors({
        processing_errors: [
          { line: 3, column: 'date_of_birth', reason: '"1990-13-45" is not a date: use YYYY-MM-DD' },
          { line: 4, column: null, reason: 'expected 2 columns, found 3' },
        ],
      }),
    ).toEqual(['Line 3, column date_of_birth: 1990-13-45 is not a date: use YYYY-MM-DD', 'Line 4: expected 2 columns, found 3']);
    expect(jobErrors({ error: { code: 'X1', detail: 'it "broke"' } })).toEqual(['code: X1, detail: it broke']);
  });

  it('names the file, the item or the workflow, cut at 60', () => {
    expect(jobName(entry({ start_details: { filename: 'list.csv', name: 'x' } }))).toBe('list.csv');
    expect(jobName(entry({ start_details: { name: 'Blast' } }))).toBe('Blast');
    expect(jobName(entry({ start_details: { workflow_payload: { name: 'Drip', timezone: 'UTC' } } }))).toBe('Drip');
    expect(shortJobName(entry({ start_details: { name: 'n'.repeat(61) } }))).toBe(`${'n'.repeat(60)}…`);
  });

  it('reads the status from ended_at and success', () => {
    expect(jobStatus(entry({}))).toBe('in progress');
    expect(jobStatus(entry({ ended_at: '2026-11-22T12:31:00.000Z', success: true }))).toBe('succeeded');
    expect(jobStatus(entry({ ended_at: '2026-11-22T12:31:00.000Z', success: false }))).toBe('failed');
    expect(jobStatus(entry({ ended_at: '2026-11-22T12:31:00.000Z', success: null }))).toBe('failed');
  });

  it('gathers errors from every field whose name contains error', () => {
    expect(
      jobErrors({
        num_sent: 1,
        error: 'top',
        processing_errors: ['row 2: "bad email"', 'row 3'],
        nested: { parseError: { line: 4 } },
        ok: null,
        empty_error: '',
      }),
    ).toEqual(['top', 'row 2: bad email', 'row 3', 'line: 4']);
    expect(jobErrors(null)).toEqual([]);
  });
});
