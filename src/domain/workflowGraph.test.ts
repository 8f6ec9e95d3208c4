import { describe, expect, it } from 'vitest';
import {
  checkTree,
  countsMachines,
  delayUntilInstant,
  displayToTree,
  MAX_TREE_DEPTH,
  nodeErrors,
  propertiesOf,
  splitDuration,
  type Display,
  type DisplayNode,
  type NodeType,
} from './workflowGraph.ts';

const T = '11111111-1111-4111-8111-111111111111';
const P = '22222222-2222-4222-8222-222222222222';
const S = '33333333-3333-4333-8333-333333333333';
let seq = 0;
const node = (id: string, type: NodeType, properties: DisplayNode['properties'] = {}): DisplayNode => ({
  id,
  type,
  position: { x: 0, y: seq++ * 10 },
  properties,
});
const link = (from: string, to: string, port = 'output') => ({
  id: `${from}->${to}:${port}`,
  from: { nodeId: from, portId: port },
  to: { nodeId: to, portId: 'input' },
});

/** The example: event 'signed_up' → delay 2 s → filter (email contains 'a') → send. */
function example(): Display {
  return {
    nodes: [
      node('t', 'event', { eventName: ' signed_up ' }),
      node('d', 'delay', { delayMS: 2000 }),
      node('f', 'splitter', { filters: [{ attribute: 'contact_email', operator: 'contains', values: ['a'] }] }),
      node('s', 'sender', { templateId: T, senderPersonaId: P }),
    ],
    links: [link('t', 'd'), link('d', 'f'), link('f', 's', 'output1')],
  };
}

describe('displayToTree', () => {
  it('turns the example graph into the tree the server runs, with settings as listed in part 2 §3', () => {
    const r = displayToTree(example());
    expect(r.errors).toEqual([]);
    expect(r.tree).toEqual({
      id: 't',
      type: 'event',
      event_topic: 'signed_up',
      event_type: 'event',
      settings: { send_at_close_enough_ms: 0 },
      children: [
        {
          id: 'd',
          type: 'delay',
          event_topic: null,
          event_type: null,
          settings: { delay_ms: 2000, send_at_close_enough_ms: 0 },
          children: [
            {
              id: 'f',
              type: 'splitter',
              event_topic: null,
              event_type: null,
              settings: { filters: [{ attribute: 'contact_email', operator: 'contains', values: ['a'] }], conjunction: 'and', send_at_close_enough_ms: 0 },
              children: [
                {
                  id: 's',
                  type: 'sender',
                  event_topic: null,
                  event_type: null,
                  port: 'output1',
                  children: [],
                  settings: { template_id: T, sender_persona_id: P, send_at_close_enough_ms: 0 },
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it("orders a splitter's children output1 (match) before output2 (no match), whatever the link order", () => {
    const d = example();
    d.nodes.push(node('u', 'unsubscriber'));
    d.links = [link('t', 'd'), link('d', 'f'), link('f', 'u', 'output2'), link('f', 's', 'output1')];
    const f = displayToTree(d).tree!.children[0].children[0];
    expect(f.children.map((c) => [c.id, c.port])).toEqual([
      ['s', 'output1'],
      ['u', 'output2'],
    ]);
    // Only 'no match' linked: the one child says so.
    d.nodes = d.nodes.filter((n) => n.id !== 's');
    d.links = [link('t', 'd'), link('d', 'f'), link('f', 'u', 'output2')];
    expect(displayToTree(d).tree!.children[0].children[0].children.map((c) => c.port)).toEqual(['output2']);
  });

  it("writes every node type's settings (delay-until zones and modes, metadata, segments, workflows)", () => {
    const d: Display = {
      nodes: [
        node('r', 'user_upserted'),
        node('du', 'delay_until', { timeHelper: { date: '2027-03-14', time: '09:00', timezone: 'America/New_York' }, delayUntilExclusive: true }),
        node('dl', 'delay_until', { timeHelper: { date: '', time: '08:15', timezone: 'Contact’s local timezone' }, delayUntilAnyDate: true }),
        node('uu', 'update_user', { jsonToUpdate: { plan: 'pro', '': 'skipped', n: 3 } }),
        node('sg', 'segmenter', { segmentId: S, segmentOperation: 'REMOVE' }),
        node('w', 'send_to_workflow', { workflowId: T }),
      ],
      links: [link('r', 'du'), link('du', 'dl'), link('dl', 'uu'), link('uu', 'sg'), link('sg', 'w')],
    };
    const r = displayToTree(d);
    expect(r.errors).toEqual([]);
    const settings = (id: string) => {
      const find = (n: NonNullable<typeof r.tree>): typeof n | undefined => (n.id === id ? n : n.children.map(find).find(Boolean));
      return find(r.tree!)!.settings;
    };
    expect(r.tree!.event_type).toBe('user_upserted');
    expect(settings('du')).toEqual({
      send_at_close_enough_ms: 0,
      delay_until: '2027-03-14T09:00',
      delay_until_timezone: 'America/New_York',
      delay_until_users_timezone: false,
      delay_until_any_date: false,
      delay_until_exclusive: true,
    });
    expect(settings('dl')).toEqual({
      send_at_close_enough_ms: 0,
      delay_until: '2000-01-01T08:15',
      delay_until_users_timezone: true,
      delay_until_any_date: true,
      delay_until_exclusive: false,
    });
    expect(settings('uu')).toEqual({ send_at_close_enough_ms: 0, user_json: { plan: 'pro', n: 3 } });
    expect(settings('sg')).toEqual({ send_at_close_enough_ms: 0, segment_id: S, segment_operation: 'REMOVE' });
    expect(settings('w')).toEqual({ send_at_close_enough_ms: 0, workflow_id: T });
    expect(checkTree(r.tree!)).toEqual([]);
  });

  it('refuses two triggers, a link into a trigger, a cycle and a missing setting, naming the node', () => {
    const two = example();
    two.nodes.push(node('t2', 'event', { eventName: 'other' }));
    expect(displayToTree(two).errors.join('\n')).toMatch(/only one trigger is allowed: Event trigger 1, Event trigger 2/);

    const into = example();
    into.links.push(link('s', 't'));
    expect(displayToTree(into).errors.join('\n')).toMatch(/nothing may link into the trigger Event trigger/);

    const cycle = example();
    cycle.nodes.push(node('d2', 'delay', { delayMS: 1000 }));
    cycle.links = [link('t', 'd'), link('d', 'f'), link('f', 'd2', 'output1'), link('d2', 'f')];
    expect(displayToTree(cycle).errors.join('\n')).toMatch(/Filter has 2 links into it/);
    const loop = example();
    loop.links = [link('t', 'd'), link('d', 'f'), link('f', 's', 'output1'), link('s', 'd')];
    expect(displayToTree(loop).errors.join('\n')).toMatch(/^Delay has 2 links into it/m);

    const missing = example();
    missing.nodes[3].properties = { templateId: T };
    expect(displayToTree(missing)).toEqual({ errors: ['Send: sender persona: Required field'], nodeIds: ['s'] });

    const none = { nodes: [node('d', 'delay', { delayMS: 1000 })], links: [] };
    expect(displayToTree(none).errors).toContain('Please add a trigger node to the workflow');
  });

  it('refuses a node no path reaches, a second link from a splitter output and a link from send_to_workflow', () => {
    const stray = example();
    stray.nodes.push(node('x', 'unsubscriber'));
    // Named by its title in the editor, never by its id; the id comes apart, for the canvas to mark.
    expect(displayToTree(stray)).toEqual({ errors: ['Unsubscribe is not connected to the trigger; connect it or delete it'], nodeIds: ['x'] });
    const twice = example();
    twice.nodes.push(node('u', 'unsubscriber'));
    twice.links.push(link('f', 'u', 'output1'));
    expect(displayToTree(twice).errors.join('\n')).toMatch(/Filter: its 'match' output has more than one link/);
    const w = example();
    w.nodes.push(node('w', 'send_to_workflow', { workflowId: T }), node('u', 'unsubscriber'));
    w.links.push(link('s', 'w'), link('w', 'u'));
    expect(displayToTree(w).errors.join('\n')).toMatch(/To workflow has no output output/);
  });

  it('aborts past the depth guard of 300 with one error', () => {
    const nodes: DisplayNode[] = [node('t', 'event', { eventName: 'e' })];
    const links = [];
    for (let i = 0; i < MAX_TREE_DEPTH + 5; i++) {
      nodes.push(node(`d${i}`, 'delay', { delayMS: 1000 }));
      links.push(link(i === 0 ? 't' : `d${i - 1}`, `d${i}`));
    }
    const r = displayToTree({ nodes, links });
    expect(r.tree).toBeUndefined();
    expect(r.errors).toEqual([`the workflow is deeper than ${MAX_TREE_DEPTH} nodes (at Delay 300)`]);
    // Exactly 300 deep is allowed.
    const ok = displayToTree({ nodes: nodes.slice(0, MAX_TREE_DEPTH), links: links.slice(0, MAX_TREE_DEPTH - 1) });
    expect(ok.errors).toEqual([]);
  });
});

describe('nodeErrors', () => {
  it("checks each node type's settings (OK stays disabled while any)", () => {
    expect(nodeErrors({ type: 'event', properties: { eventName: '  ' } })).toEqual(['event name: Required field']);
    expect(nodeErrors({ type: 'delay', properties: { delayMS: 500 } })).toEqual(['delay: at least 1 second, in whole seconds']);
    expect(nodeErrors({ type: 'delay', properties: { delayMS: 60_000 } })).toEqual([]);
    expect(nodeErrors({ type: 'delay_until', properties: { timeHelper: { time: '25:00', timezone: 'Mars/Base' } } })).toHaveLength(3);
    expect(nodeErrors({ type: 'splitter', properties: { filters: [{ attribute: 'num_opens', operator: 'contains', values: [1] }] } })[0]).toMatch(/^filters: /);
    expect(nodeErrors({ type: 'update_user', properties: { jsonToUpdate: { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 } } })).toEqual(['metadata: at most 5 pairs']);
    expect(nodeErrors({ type: 'segmenter', properties: { segmentId: S, segmentOperation: 'ADD' } })).toEqual([]);
  });
});

describe('delayUntilInstant', () => {
  const at = (s: string) => new Date(s);
  const base = { send_at_close_enough_ms: 0 as const };
  it("waits until the date and time in the node's zone, across a DST change", () => {
    const s = { ...base, delay_until: '2027-03-14T09:00', delay_until_timezone: 'America/New_York' };
    expect(delayUntilInstant(s, at('2027-03-01T00:00:00Z'))).toEqual(at('2027-03-14T13:00:00Z'));
  });
  it('excludes a tardy contact, or lets it go at once, by mode', () => {
    const past = { ...base, delay_until: '2027-01-01T12:30', delay_until_timezone: 'UTC' };
    const now = at('2027-02-01T00:00:00Z');
    expect(delayUntilInstant({ ...past, delay_until_exclusive: true }, now)).toBe('exclude');
    expect(delayUntilInstant({ ...past, delay_until_exclusive: false }, now)).toEqual(now);
  });
  it("takes the next time of day in the contact's own zone, tomorrow when today's has passed", () => {
    const s = { ...base, delay_until: '2000-01-01T08:15', delay_until_users_timezone: true, delay_until_any_date: true };
    expect(delayUntilInstant(s, at('2027-06-10T05:00:00Z'), 'Europe/Paris')).toEqual(at('2027-06-10T06:15:00Z'));
    expect(delayUntilInstant(s, at('2027-06-10T07:00:00Z'), 'Europe/Paris')).toEqual(at('2027-06-11T06:15:00Z'));
    expect(delayUntilInstant(s, at('2027-06-10T07:00:00Z'), null)).toEqual(at('2027-06-10T08:15:00Z'));
  });
});

describe('splitDuration', () => {
  it('shows a duration in its largest whole unit', () => {
    expect(splitDuration(1000)).toEqual({ amount: 1, unit: 'seconds' });
    expect(splitDuration(120_000)).toEqual({ amount: 2, unit: 'minutes' });
    expect(splitDuration(86_400_000 * 3)).toEqual({ amount: 3, unit: 'days' });
    expect(splitDuration(90_000)).toEqual({ amount: 90, unit: 'seconds' });
  });
});

describe('event triggers on opens and clicks', () => {
  const trigger = (eventName: string, includeMachine?: boolean) =>
    displayToTree({
      nodes: [node('t', 'event', { eventName, ...(includeMachine === undefined ? {} : { includeMachine }) }), node('d', 'delay', { delayMS: 1000 })],
      links: [link('t', 'd')],
    }).tree!;

  it('count people by default; include_machine only when asked, and only on opens and clicks', () => {
    expect(countsMachines('ses_event_open')).toBe(true);
    expect(countsMachines(' ses_event_click ')).toBe(true);
    expect(countsMachines('signed_up')).toBe(false);
    expect(trigger('ses_event_open').settings.include_machine).toBeUndefined();
    expect(trigger('ses_event_open', false).settings.include_machine).toBeUndefined();
    expect(trigger('ses_event_click', true).settings.include_machine).toBe(true);
    // A custom event is made by the customer's system, never by a machine in a mailbox: nothing to include.
    expect(trigger('signed_up', true).settings.include_machine).toBeUndefined();
  });

  it('the editor reads the choice back from the tree', () => {
    expect(propertiesOf(trigger('ses_event_open', true))).toEqual({ eventName: 'ses_event_open', includeMachine: true });
    expect(propertiesOf(trigger('ses_event_open'))).toEqual({ eventName: 'ses_event_open' });
  });
});
