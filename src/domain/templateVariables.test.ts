/** Template variables' render context (spec part 2 §3 Template variables). */
import Handlebars from 'handlebars';
import { describe, expect, it } from 'vitest';
import { buildRenderContext, SENDER_PERSONA_VARIABLE_FIELDS, USER_VARIABLE_FIELDS } from './templateVariables.ts';

const user = {
  id: '5f4b1f7e-1c1a-4c1e-9a51-0c2d3e4f5a6b',
  email: 'ann@example.com',
  first_name: 'Ann',
  last_name: null,
  timezone: 'Europe/London',
  date_of_birth: new Date('1990-05-17T11:59:59.000Z'),
  unsubscribed_at: null,
  created_at: new Date('2026-01-01T00:00:00.000Z'),
  updated_at: new Date('2026-02-03T04:05:06.789Z'),
  version: 3,
  json: { plan: 'gold', visits: 7, nested: { a: 1 }, flag: false },
};
const persona = {
  id: '9a4b1f7e-1c1a-4c1e-9a51-0c2d3e4f5a6b',
  email: 'news@sender.example.com',
  first_name: 'Nora',
  created_at: new Date('2025-01-01T00:00:00.000Z'),
  updated_at: new Date('2025-06-01T00:00:00.000Z'),
  version: 9,
  json: { team: 'growth' },
};

describe('buildRenderContext', () => {
  const ctx = buildRenderContext(user, persona, 'https://example.test/u/abc');

  it('leaves out the contact’s id and created_at', () => {
    expect(ctx.user).not.toHaveProperty('id');
    expect(ctx.user).not.toHaveProperty('created_at');
    expect(USER_VARIABLE_FIELDS).not.toContain('id');
    expect(USER_VARIABLE_FIELDS).not.toContain('created_at');
  });

  it('keeps the contact’s other fields, including updated_at and version', () => {
    expect(ctx.user).toEqual({
      email: 'ann@example.com',
      first_name: 'Ann',
      last_name: '',
      timezone: 'Europe/London',
      date_of_birth: '1990-05-17T11:59:59.000Z',
      unsubscribed_at: '',
      updated_at: '2026-02-03T04:05:06.789Z',
      version: 3,
      json: { plan: 'gold', visits: 7, nested: { a: 1 }, flag: false },
    });
  });

  it('leaves out the sender persona’s id, created_at, updated_at and version', () => {
    for (const f of ['id', 'created_at', 'updated_at', 'version']) {
      expect(ctx.sender_persona).not.toHaveProperty(f);
      expect(SENDER_PERSONA_VARIABLE_FIELDS).not.toContain(f);
    }
    expect(ctx.sender_persona).toEqual({ email: 'news@sender.example.com', first_name: 'Nora', last_name: '', json: { team: 'growth' } });
  });

  it('turns Date values into ISO strings', () => {
    expect(typeof ctx.user.date_of_birth).toBe('string');
    expect(ctx.user.date_of_birth).toBe(user.date_of_birth.toISOString());
    const withUnsub = buildRenderContext({ ...user, unsubscribed_at: new Date(Date.UTC(2026, 10, 20, 8, 0, 0)) }, persona, '');
    expect(withUnsub.user.unsubscribed_at).toBe('2026-11-20T08:00:00.000Z');
  });

  it('copies json as it is, without sharing the object', () => {
    expect(ctx.user.json).toEqual(user.json);
    expect(ctx.user.json).not.toBe(user.json);
    ctx.user.json.plan = 'changed';
    expect(user.json.plan).toBe('gold');
  });

  it('renders missing values as blank, including for no contact or persona at all', () => {
    const empty = buildRenderContext(null, undefined, 'https://example.test/u/x');
    for (const f of USER_VARIABLE_FIELDS) expect(empty.user[f], f).toBe('');
    for (const f of SENDER_PERSONA_VARIABLE_FIELDS) expect(empty.sender_persona[f], f).toBe('');
    expect(empty.user.json).toEqual({});
    expect(empty.sender_persona.json).toEqual({});
    expect(empty.unsubscribe_link).toBe('https://example.test/u/x');
  });

  it('keeps falsy but present values (0, false) rather than blanking them', () => {
    const c = buildRenderContext({ ...user, version: 0 }, persona, '');
    expect(c.user.version).toBe(0);
    expect(c.user.json.flag).toBe(false);
  });

  it('with Handlebars: excluded and unknown fields render blank, the rest render their values', () => {
    const render = Handlebars.compile(
      '[{{user.id}}][{{user.created_at}}][{{user.email}}][{{user.json.plan}}][{{user.json.missing}}][{{sender_persona.first_name}}][{{sender_persona.version}}][{{unsubscribe_link}}]',
    );
    expect(render(buildRenderContext(user, persona, 'https://example.test/u/abc'))).toBe('[][][ann@example.com][gold][][Nora][][https://example.test/u/abc]');
  });
});
