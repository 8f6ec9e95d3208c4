import { describe, expect, it } from 'vitest';
import { defaultProperties, displayOf, displayToTree, type Display } from '../../domain/workflowGraph.ts';
import {
  addNode,
  connect,
  filterSummary,
  formatDuration,
  linkProblem,
  nextNodeChoices,
  nodesInWords,
  nodeSummary,
  nodeTitles,
  removeNode,
} from './graphEditing.ts';

const T = '11111111-1111-4111-8111-111111111111';
const P = '22222222-2222-4222-8222-222222222222';

function add(d: Display, id: string, type: Parameters<typeof defaultProperties>[0], extra = {}): Display {
  const r = addNode(d, { id, type, properties: { ...defaultProperties(type, '2030-01-01'), ...extra } });
  if ('error' in r) throw new Error(r.error);
  return r.display;
}
function link(d: Display, nodeId: string, portId: string, to: string | null, id = `l-${nodeId}-${portId}`): Display {
  const r = connect(d, { nodeId, portId }, to, id);
  if ('error' in r) throw new Error(r.error);
  return r.display;
}

/** The browser test's workflow: event signed_up → delay 2 s → filter (email contains a) → match: send. */
function sample(): Display {
  let d: Display = { nodes: [], links: [] };
  d = add(d, 'e', 'event', { eventName: 'signed_up' });
  d = add(d, 'd', 'delay', { delayMS: 2000 });
  d = add(d, 'f', 'splitter', { filters: [{ attribute: 'contact_email', operator: 'contains', values: ['a'] }] });
  d = add(d, 's', 'sender', { templateId: T, senderPersonaId: P });
  d = link(d, 'e', 'output', 'd');
  d = link(d, 'd', 'output', 'f');
  return link(d, 'f', 'output1', 's');
}

describe('editing a workflow graph (spec part 2 §4 Workflow graph rules)', () => {
  it('builds a graph whose tree is the workflow, and survives a save and load as JSON', () => {
    const d = sample();
    const result = displayToTree(displayOf(JSON.parse(JSON.stringify(d))));
    expect(result.errors).toEqual([]);
    expect(result.tree).toMatchObject({
      id: 'e',
      type: 'event',
      event_topic: 'signed_up',
      children: [{ id: 'd', settings: { delay_ms: 2000 }, children: [{ id: 'f', children: [{ id: 's', port: 'output1' }] }] }],
    });
    expect(displayOf(JSON.parse(JSON.stringify(d)))).toEqual(d);
  });

  it('refuses a second trigger, links into a trigger, self-links and a second link into a node', () => {
    const d = sample();
    expect(addNode(d, { id: 'e2', type: 'event', properties: {} })).toHaveProperty('error');
    expect(linkProblem(d, { nodeId: 'd', portId: 'output' }, 'e')).toMatch(/nothing can link into the trigger/);
    expect(linkProblem(d, { nodeId: 'd', portId: 'output' }, 'd')).toMatch(/itself/);
    expect(linkProblem(d, { nodeId: 'f', portId: 'output2' }, 's')).toMatch(/already has a link into it/);
    expect(linkProblem(d, { nodeId: 's', portId: 'input' }, 'd')).toMatch(/output does not exist/);
    expect(nextNodeChoices(d, { nodeId: 'f', portId: 'output2' }).map((n) => n.id)).toEqual([]);
    expect(nextNodeChoices(d, { nodeId: 'f', portId: 'output1' }).map((n) => n.id)).toEqual(['s']);
  });

  it('replaces the link of an output with a new one, and removes it with null', () => {
    let d = add(sample(), 'u', 'unsubscriber');
    d = link(d, 'f', 'output1', 'u', 'new');
    expect(d.links.filter((l) => l.from.nodeId === 'f')).toEqual([
      { id: 'new', from: { nodeId: 'f', portId: 'output1' }, to: { nodeId: 'u', portId: 'input' } },
    ]);
    d = link(d, 'f', 'output2', 's');
    d = link(d, 'f', 'output1', null);
    expect(d.links.filter((l) => l.from.nodeId === 'f').map((l) => [l.from.portId, l.to.nodeId])).toEqual([['output2', 's']]);
  });

  it('deletes a node with its links', () => {
    const d = removeNode(sample(), 'f');
    expect(d.nodes.map((n) => n.id)).toEqual(['e', 'd', 's']);
    expect(d.links.map((l) => l.id)).toEqual(['l-e-output']);
  });

  it('summarises each node and numbers repeated types', () => {
    expect(formatDuration(2000)).toBe('2 seconds');
    expect(formatDuration(3_600_000)).toBe('1 hour');
    expect(
      filterSummary(
        [
          { attribute: 'contact_email', operator: 'contains', values: ['a'] },
          { attribute: 'date_added', operator: 'less_than', values: ['2030-01-01'] },
        ],
        'or',
      ),
    ).toBe('email contains a or date added before 2030-01-01');
    expect(nodeSummary({ type: 'event', properties: { eventName: 'signed_up' } })).toBe('signed_up');
    expect(nodeSummary({ type: 'sender', properties: { templateId: T } }, { [T]: 'Welcome' })).toBe('Welcome');
    expect(nodeSummary({ type: 'delay_until', properties: { timeHelper: { time: '12:30', timezone: 'UTC' }, delayUntilAnyDate: true } })).toBe(
      'next 12:30 UTC',
    );
    const d = add(sample(), 'd2', 'delay');
    expect([...nodeTitles(d).values()]).toEqual(['Event trigger', 'Delay 1', 'Filter', 'Send', 'Delay 2']);
  });
});

describe('nodesInWords', () => {
  it("names the server's nodes by their titles and lists them for the canvas", () => {
    const display = {
      nodes: [
        { id: 'trig-1', type: 'event' as const, position: { x: 0, y: 0 }, properties: { eventName: 'x' } },
        { id: '1342e406-aaaa-bbbb-cccc-000000000001', type: 'delay' as const, position: { x: 0, y: 0 }, properties: { delayMS: 1 } },
        { id: '1342e406-aaaa-bbbb-cccc-000000000002', type: 'delay' as const, position: { x: 0, y: 0 }, properties: { delayMS: 1 } },
      ],
      links: [],
    };
    expect(
      nodesInWords(
        [
          'node 1342e406-aaaa-bbbb-cccc-000000000002 (Delay): something',
          'node 1342e406-aaaa-bbbb-cccc-000000000001: no template with id abc in this project',
          'node elsewhere (Send): kept as it is',
          'name: You must provide a workflow name',
        ],
        display,
      ),
    ).toEqual({
      errors: [
        'Delay 2: something',
        'Delay 1: no template with id abc in this project',
        'node elsewhere (Send): kept as it is',
        'name: You must provide a workflow name',
      ],
      nodeIds: ['1342e406-aaaa-bbbb-cccc-000000000002', '1342e406-aaaa-bbbb-cccc-000000000001'],
    });
  });
});
