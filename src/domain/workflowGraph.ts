/**
 * Workflow graphs (spec part 2 §2 Workflows, §3 Workflow, §4 Workflow graph rules and delay-until modes, §5 Workflow,
 * §9): the node types and their ports, each node's settings and their checks, the editor's display
 * graph (nodes and links) turned into the tree the server stores and runs, and the delay-until instant. Pure; shared
 * by the workflow editor, the workflow gateway (validation) and the engine.
 */
import { DateTime } from 'luxon';
import { checkFilters, type UserFilter } from './segmentFilter.ts';
import { isValidTimezone, parseWallClock, recipientZone, wallClockToInstant } from './sendTime.ts';
import { EVENT } from './events.ts';

/** Every node type (part 2 §3). root, event and user_upserted are triggers: the one node a workflow starts from. */
export const NODE_TYPES = [
  'root',
  'event',
  'user_upserted',
  'delay',
  'delay_until',
  'splitter',
  'unsubscriber',
  'update_user',
  'segmenter',
  'send_to_workflow',
  'sender',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** The trigger types: a node with no input that a contact enters at (part 2 §4). */
export const TRIGGER_TYPES: readonly NodeType[] = ['root', 'event', 'user_upserted'];

/** isTrigger is true for the root trigger types. */
export function isTrigger(type: string): boolean {
  return (TRIGGER_TYPES as readonly string[]).includes(type);
}

/** The editor's toolbar (part 2 §2 Workflows): groups of node types with their labels. */
export const TOOLBAR: Array<{ group: string; items: Array<{ type: NodeType; label: string }> }> = [
  { group: 'Triggers', items: [{ type: 'event', label: 'Event trigger' }] },
  {
    group: 'Flow Control',
    items: [
      { type: 'delay', label: 'Delay' },
      { type: 'delay_until', label: 'Delay until' },
      { type: 'splitter', label: 'Filter' },
    ],
  },
  {
    group: 'Actions',
    items: [
      { type: 'segmenter', label: 'Segmentation' },
      { type: 'update_user', label: 'Update metadata' },
      { type: 'unsubscriber', label: 'Unsubscribe' },
      { type: 'send_to_workflow', label: 'To workflow' },
      { type: 'sender', label: 'Send' },
    ],
  },
];

/** nodeLabel is a node type's name in the editor. */
export function nodeLabel(type: string): string {
  if (type === 'root') return 'Start';
  if (type === 'user_upserted') return 'Contact created or updated';
  for (const g of TOOLBAR) for (const item of g.items) if (item.type === type) return item.label;
  return type;
}

/** The input port of every node but a trigger. */
export const INPUT_PORT = 'input';

/** inputPorts lists a node type's input ports: none for triggers, one for the rest (part 2 §4). */
export function inputPorts(type: string): string[] {
  return isTrigger(type) ? [] : [INPUT_PORT];
}

/** outputPorts lists a node type's output ports: a splitter has 'match' and 'no match', send_to_workflow none, the rest one. */
export function outputPorts(type: string): string[] {
  if (type === 'splitter') return ['output1', 'output2'];
  if (type === 'send_to_workflow') return [];
  return ['output'];
}

/** The labels of the splitter's outputs (part 2 §4). */
export const PORT_LABELS: Record<string, string> = { output1: 'match', output2: 'no match', output: '', input: '' };

/** Duration units of the delay input (part 2 §5, §9): their length in ms. */
export const DURATION_UNITS = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;
export type DurationUnit = keyof typeof DURATION_UNITS;

/** The default delay: 1 second (part 2 §5). */
export const DEFAULT_DELAY_MS = 1000;

/** splitDuration shows `ms` in the largest unit that divides it (1 minute, not 60 seconds). */
export function splitDuration(ms: number): { amount: number; unit: DurationUnit } {
  for (const unit of ['days', 'hours', 'minutes'] as const) {
    if (ms >= DURATION_UNITS[unit] && ms % DURATION_UNITS[unit] === 0) return { amount: ms / DURATION_UNITS[unit], unit };
  }
  return { amount: Math.max(1, Math.round(ms / 1000)), unit: 'seconds' };
}

/** The update-metadata node's limit (part 2 §5, §9). */
export const MAX_USER_JSON_PAIRS = 5;

/** The tree depth guard (part 2 §4, §9): a path longer than this aborts the conversion. */
export const MAX_TREE_DEPTH = 300;

/** The default delay-until time and zone (part 2 §5: 12:30 UTC). */
export const DEFAULT_DELAY_UNTIL = { time: '12:30', timezone: 'UTC' } as const;

/** The three delay-until modes (part 2 §4) and their two flags. */
export const DELAY_UNTIL_MODES = [
  { value: 'exclude_tardy', label: 'Exclude tardy', anyDate: false, exclusive: true },
  { value: 'allow_tardy', label: 'Allow tardy / at least', anyDate: false, exclusive: false },
  { value: 'time_of_day', label: 'Time of day exactly, next day if passed', anyDate: true, exclusive: false },
] as const;

/** delayUntilMode names the mode of a node's two flags (anyDate wins when both are set). */
export function delayUntilMode(anyDate: boolean | undefined, exclusive: boolean | undefined): (typeof DELAY_UNTIL_MODES)[number]['value'] {
  if (anyDate) return 'time_of_day';
  return exclusive ? 'exclude_tardy' : 'allow_tardy';
}

/**
 * countsMachines says whether an event trigger's event is one that people or machines make — an open or a click
 * (src/domain/engagement.ts) — and so offers the include-machine choice.
 */
export function countsMachines(eventName: string | undefined): boolean {
  const name = eventName?.trim();
  return name === EVENT.open || name === EVENT.click;
}

/** The editor's per-node properties (part 2 §3 Node properties), plus the filters' join. */
export interface NodeProperties {
  eventName?: string;
  /**
   * An event trigger on opens or clicks (ses_event_open, ses_event_click): also enter on machine opens (an Apple Mail
   * Privacy Protection prefetch, an image proxy) and bot clicks (a link scanner). Off by default: people only, as the
   * reports and the filters count them.
   */
  includeMachine?: boolean;
  delayMS?: number;
  timeHelper?: { date?: string; time?: string; timezone?: string };
  delayUntilAnyDate?: boolean;
  delayUntilExclusive?: boolean;
  templateId?: string;
  senderPersonaId?: string;
  filters?: UserFilter[];
  filterConjunction?: 'and' | 'or';
  segmentId?: string;
  segmentOperation?: 'ADD' | 'REMOVE';
  jsonToUpdate?: Record<string, unknown>;
  workflowId?: string;
}

/** A node of the editor's display graph (part 2 §3). */
export interface DisplayNode {
  id: string;
  type: NodeType;
  position: { x: number; y: number };
  properties: NodeProperties;
  data?: unknown;
}
/** A link of the display graph: from a node's output port to a node's input port. */
export interface DisplayLink {
  id: string;
  from: { nodeId: string; portId: string };
  to: { nodeId: string; portId: string };
}
/** The editor's graph, saved as the workflow's display. */
export interface Display {
  nodes: DisplayNode[];
  links: DisplayLink[];
}

/** A node's settings in the tree (part 2 §3 settings), as the server stores and runs them. */
export interface NodeSettings {
  /** An event trigger on opens or clicks: machine opens and bot clicks enter too (default: people only). */
  include_machine?: boolean;
  delay_ms?: number;
  sender_persona_id?: string;
  template_id?: string;
  /** Always 0 (part 2 §9). */
  send_at_close_enough_ms: 0;
  /** A wall-clock `YYYY-MM-DDTHH:mm` (the date is ignored with delay_until_any_date). */
  delay_until?: string;
  /** The zone of delay_until when it is not the contact's own (designed: the spec keeps it in the editor's timeHelper). */
  delay_until_timezone?: string;
  delay_until_users_timezone?: boolean;
  delay_until_any_date?: boolean;
  delay_until_exclusive?: boolean;
  filters?: UserFilter[];
  conjunction?: 'and' | 'or';
  segment_id?: string;
  segment_operation?: 'ADD' | 'REMOVE';
  user_json?: Record<string, unknown>;
  workflow_id?: string;
}

/**
 * A node of the tree (part 2 §3 Tree sent to the server). `port` (designed) says which splitter output a child hangs
 * from: 'output1' (match) or 'output2' (no match); children are ordered output1 before output2.
 */
export interface TreeNode {
  id: string;
  type: NodeType;
  event_topic: string | null;
  event_type: string | null;
  children: TreeNode[];
  settings: NodeSettings;
  port?: 'output1' | 'output2';
}

/**
 * The body of a workflow save or validate (spec part 2 §7: the editor, and the wizard's launch, send the workflow's id,
 * name, display and the tree displayToTree built from it; openapi/workflowwrapper.yaml WorkflowInput).
 */
export interface WorkflowBody {
  id: string;
  name: string;
  display: Display;
  tree: TreeNode;
}

/**
 * displayOf reads a display graph from untyped JSON (a request body, a stored workflow): nodes need a string id and
 * type, links a from and a to with string node and port ids; anything else is dropped here and reported by
 * displayToTree as what it leaves (an unknown type, a link to no node).
 */
export function displayOf(value: { nodes?: unknown[]; links?: unknown[] } | null | undefined): Display {
  const obj = (x: unknown): Record<string, unknown> => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : {});
  const end = (x: unknown) => ({ nodeId: String(obj(x).nodeId ?? ''), portId: String(obj(x).portId ?? '') });
  return {
    nodes: (value?.nodes ?? [])
      .map(obj)
      .filter((n) => typeof n.id === 'string' && typeof n.type === 'string')
      .map((n) => ({
        id: n.id as string,
        type: n.type as NodeType,
        position: { x: Number(obj(n.position).x) || 0, y: Number(obj(n.position).y) || 0 },
        properties: obj(n.properties) as NodeProperties,
        data: n.data,
      })),
    links: (value?.links ?? []).map(obj).map((l) => ({ id: String(l.id ?? ''), from: end(l.from), to: end(l.to) })),
  };
}

/** The "Contact's local timezone" choice of the delay-until zone. */
export const CONTACT_ZONE = 'Contact’s local timezone';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isId = (v: unknown): v is string => typeof v === 'string' && UUID_RE.test(v);

/**
 * nodeErrors lists what is missing or wrong in one node's properties (the settings modal's OK is disabled while there
 * is any; part 2 §4). Messages name the setting.
 */
export function nodeErrors(node: Pick<DisplayNode, 'type' | 'properties'>): string[] {
  const p = node.properties ?? {};
  const errors: string[] = [];
  switch (node.type) {
    case 'event':
      if (!p.eventName?.trim()) errors.push('event name: Required field');
      else if (p.eventName.trim().length > 200) errors.push('event name: at most 200 characters');
      break;
    case 'delay':
      if (!Number.isInteger(p.delayMS) || (p.delayMS as number) < 1000) errors.push('delay: at least 1 second, in whole seconds');
      else if ((p.delayMS as number) % 1000 !== 0) errors.push('delay: whole seconds only');
      break;
    case 'delay_until': {
      const t = p.timeHelper ?? {};
      if (!t.time || !/^\d{2}:\d{2}$/.test(t.time) || !parseWallClock(`2000-01-01T${t.time}`)) errors.push('time: a time of day (HH:mm) is required');
      if (!p.delayUntilAnyDate && (!t.date || !parseWallClock(`${t.date}T00:00`))) errors.push('date: a date (YYYY-MM-DD) is required');
      if (!t.timezone || (t.timezone !== CONTACT_ZONE && !isValidTimezone(t.timezone))) errors.push('timezone: choose a time zone');
      break;
    }
    case 'splitter': {
      const filters = p.filters ?? [];
      if (!filters.length) errors.push('filters: you must provide at least 1 filter');
      else {
        const checked = checkFilters(filters);
        if ('errors' in checked) errors.push(...checked.errors.map((e) => `filters: ${e}`));
      }
      break;
    }
    case 'update_user': {
      const keys = Object.keys(p.jsonToUpdate ?? {}).filter((k) => k.trim());
      if (!keys.length) errors.push('metadata: add at least one key');
      if (keys.length > MAX_USER_JSON_PAIRS) errors.push(`metadata: at most ${MAX_USER_JSON_PAIRS} pairs`);
      break;
    }
    case 'segmenter':
      if (!isId(p.segmentId)) errors.push('segment: Required field');
      if (p.segmentOperation !== 'ADD' && p.segmentOperation !== 'REMOVE') errors.push('operation: ADD or REMOVE');
      break;
    case 'send_to_workflow':
      if (!isId(p.workflowId)) errors.push('workflow: Required field');
      break;
    case 'sender':
      if (!isId(p.templateId)) errors.push('template: Required field');
      if (!isId(p.senderPersonaId)) errors.push('sender persona: Required field');
      break;
    default:
      break;
  }
  return errors;
}

/** defaultProperties are a new node's properties (part 2 §5: 1 second; 12:30 UTC; ADD). `today` is YYYY-MM-DD. */
export function defaultProperties(type: NodeType, today: string): NodeProperties {
  switch (type) {
    case 'event':
      return { eventName: '' };
    case 'delay':
      return { delayMS: DEFAULT_DELAY_MS };
    case 'delay_until':
      return {
        timeHelper: { date: today, time: DEFAULT_DELAY_UNTIL.time, timezone: DEFAULT_DELAY_UNTIL.timezone },
        delayUntilAnyDate: false,
        delayUntilExclusive: false,
      };
    case 'splitter':
      return { filters: [], filterConjunction: 'and' };
    case 'update_user':
      return { jsonToUpdate: {} };
    case 'segmenter':
      return { segmentOperation: 'ADD' };
    default:
      return {};
  }
}

/** settingsOf turns a node's editor properties into its tree settings (part 2 §3). */
export function settingsOf(node: Pick<DisplayNode, 'type' | 'properties'>): NodeSettings {
  const p = node.properties ?? {};
  const s: NodeSettings = { send_at_close_enough_ms: 0 };
  switch (node.type) {
    case 'event':
      if (p.includeMachine && countsMachines(p.eventName)) s.include_machine = true;
      break;
    case 'delay':
      s.delay_ms = p.delayMS;
      break;
    case 'delay_until': {
      const t = p.timeHelper ?? {};
      s.delay_until = `${p.delayUntilAnyDate ? '2000-01-01' : t.date}T${t.time}`;
      s.delay_until_users_timezone = t.timezone === CONTACT_ZONE;
      if (!s.delay_until_users_timezone) s.delay_until_timezone = t.timezone;
      s.delay_until_any_date = !!p.delayUntilAnyDate;
      s.delay_until_exclusive = !!p.delayUntilExclusive;
      break;
    }
    case 'splitter':
      s.filters = p.filters ?? [];
      s.conjunction = p.filterConjunction ?? 'and';
      break;
    case 'update_user':
      s.user_json = Object.fromEntries(Object.entries(p.jsonToUpdate ?? {}).filter(([k]) => k.trim()));
      break;
    case 'segmenter':
      s.segment_id = p.segmentId;
      s.segment_operation = p.segmentOperation;
      break;
    case 'send_to_workflow':
      s.workflow_id = p.workflowId;
      break;
    case 'sender':
      s.template_id = p.templateId;
      s.sender_persona_id = p.senderPersonaId;
      break;
    default:
      break;
  }
  return s;
}

/**
 * nodeTitles names every node for pick lists and the node list: its label, numbered when the graph has several of
 * that type ("Delay 1", "Delay 2", in the graph's order). The save errors name nodes by these titles, so the
 * editor and the server's message name the same node.
 */
export function nodeTitles(display: Pick<Display, 'nodes'>): Map<string, string> {
  const counts = new Map<string, number>();
  for (const n of display.nodes ?? []) counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
  const seen = new Map<string, number>();
  const titles = new Map<string, string>();
  for (const n of display.nodes ?? []) {
    const k = (seen.get(n.type) ?? 0) + 1;
    seen.set(n.type, k);
    titles.set(n.id, (counts.get(n.type) ?? 0) > 1 ? `${nodeLabel(n.type)} ${k}` : nodeLabel(n.type));
  }
  return titles;
}

/**
 * The result of turning a display graph into a tree: the tree, or the errors, each naming its node by its title, with
 * the ids of the nodes they name (`nodeIds`, for the editor to mark on the canvas).
 */
export type TreeResult = { tree: TreeNode; errors: [] } | { tree?: undefined; errors: string[]; nodeIds: string[] };

/**
 * displayToTree checks a display graph against the graph rules of part 2 §4 and turns it into the tree: exactly one
 * trigger, links only from an output port to an input port of known nodes, nothing linked into a trigger, one link
 * into each node and out of each splitter output, no cycle, every node reachable from the trigger, every node's
 * settings complete (nodeErrors), and no path deeper than MAX_TREE_DEPTH. Children are ordered output1 before
 * output2 (then by link order). Never throws.
 */
export function displayToTree(display: Display): TreeResult {
  const errors: string[] = [];
  const named = new Set<string>();
  const titles = nodeTitles(display);
  /** nodeName names a node in a message by its editor title, and marks it as one the errors name. */
  const nodeName = (n: Pick<DisplayNode, 'id' | 'type'>) => {
    named.add(n.id);
    return titles.get(n.id) ?? nodeLabel(n.type);
  };
  const nodes = new Map<string, DisplayNode>();
  for (const n of display.nodes ?? []) {
    if (!(NODE_TYPES as readonly string[]).includes(n.type)) errors.push(`${nodeName(n)}: unknown type ${JSON.stringify(n.type)}`);
    else if (nodes.has(n.id)) errors.push(`${nodeName(n)}: two nodes have the same id`);
    else nodes.set(n.id, n);
  }
  const triggers = [...nodes.values()].filter((n) => isTrigger(n.type));
  if (!triggers.length) errors.push('Please add a trigger node to the workflow');
  if (triggers.length > 1) errors.push(`only one trigger is allowed: ${triggers.map(nodeName).join(', ')}`);
  const out = new Map<string, DisplayLink[]>();
  const into = new Map<string, DisplayLink[]>();
  for (const l of display.links ?? []) {
    const from = nodes.get(l.from?.nodeId);
    const to = nodes.get(l.to?.nodeId);
    if (!from || !to) {
      errors.push(`link ${l.id}: it joins a node that does not exist`);
      continue;
    }
    if (isTrigger(to.type)) {
      errors.push(`link ${l.id}: nothing may link into the trigger ${nodeName(to)}`);
      continue;
    }
    if (!outputPorts(from.type).includes(l.from.portId)) {
      errors.push(`link ${l.id}: ${nodeName(from)} has no output ${l.from.portId}`);
      continue;
    }
    if (!inputPorts(to.type).includes(l.to.portId)) {
      errors.push(`link ${l.id}: ${nodeName(to)} has no input ${l.to.portId}`);
      continue;
    }
    out.set(from.id, [...(out.get(from.id) ?? []), l]);
    into.set(to.id, [...(into.get(to.id) ?? []), l]);
  }
  for (const [id, links] of into) if (links.length > 1) errors.push(`${nodeName(nodes.get(id)!)} has ${links.length} links into it; a node takes one`);
  for (const [id, links] of out) {
    const n = nodes.get(id)!;
    if (n.type !== 'splitter') continue;
    for (const port of ['output1', 'output2']) {
      if (links.filter((l) => l.from.portId === port).length > 1) errors.push(`${nodeName(n)}: its '${PORT_LABELS[port]}' output has more than one link`);
    }
  }
  for (const n of nodes.values()) for (const e of nodeErrors(n)) errors.push(`${nodeName(n)}: ${e}`);
  if (errors.length || triggers.length !== 1) return { errors, nodeIds: [...named] };

  const reached = new Set<string>();
  const onPath = new Set<string>();
  let aborted = false;
  const build = (n: DisplayNode, depth: number, port?: 'output1' | 'output2'): TreeNode | undefined => {
    if (depth > MAX_TREE_DEPTH) {
      if (!aborted) errors.push(`the workflow is deeper than ${MAX_TREE_DEPTH} nodes (at ${nodeName(n)})`);
      aborted = true;
      return undefined;
    }
    if (onPath.has(n.id)) {
      errors.push(`${nodeName(n)} is part of a cycle`);
      aborted = true;
      return undefined;
    }
    onPath.add(n.id);
    reached.add(n.id);
    const links = [...(out.get(n.id) ?? [])].sort((a, b) => portRank(a.from.portId) - portRank(b.from.portId));
    const children: TreeNode[] = [];
    for (const l of links) {
      if (aborted) break;
      const child = build(nodes.get(l.to.nodeId)!, depth + 1, n.type === 'splitter' ? (l.from.portId as 'output1' | 'output2') : undefined);
      if (child) children.push(child);
    }
    onPath.delete(n.id);
    const node: TreeNode = {
      id: n.id,
      type: n.type,
      event_topic: n.type === 'event' ? n.properties.eventName!.trim() : null,
      event_type: isTrigger(n.type) ? n.type : null,
      children,
      settings: settingsOf(n),
    };
    if (port) node.port = port;
    return node;
  };
  const tree = build(triggers[0], 1);
  if (aborted || !tree) return { errors, nodeIds: [...named] };
  for (const n of nodes.values()) if (!reached.has(n.id)) errors.push(`${nodeName(n)} is not connected to the trigger; connect it or delete it`);
  return errors.length ? { errors, nodeIds: [...named] } : { tree, errors: [] };
}

function portRank(port: string): number {
  return port === 'output1' ? 0 : port === 'output2' ? 1 : 0;
}

/** flattenTree lists a tree's nodes with their parent and depth (1 for the root), parents before children. */
export function flattenTree(tree: TreeNode): Array<{ node: TreeNode; parentId: string | null; depth: number }> {
  const list: Array<{ node: TreeNode; parentId: string | null; depth: number }> = [];
  const walk = (n: TreeNode, parentId: string | null, depth: number) => {
    list.push({ node: n, parentId, depth });
    for (const c of n.children) walk(c, n.id, depth + 1);
  };
  walk(tree, null, 1);
  return list;
}

/**
 * checkTree checks a tree received from a client (the same rules as displayToTree, for a tree built elsewhere):
 * one trigger at the root and nowhere else, unique node ids, settings complete, splitter children on output1/output2,
 * no children under send_to_workflow, depth at most MAX_TREE_DEPTH. Returns errors naming the node.
 */
export function checkTree(tree: TreeNode): string[] {
  const errors: string[] = [];
  // A tree comes from an API client, which knows its nodes by id.
  const nodeName = (n: Pick<TreeNode, 'id' | 'type'>) => `node ${n.id} (${nodeLabel(n.type)})`;
  if (!tree || !isTrigger(tree.type)) return ['root_node: the workflow must start with a trigger node (Please add a trigger node to the workflow)'];
  const seen = new Set<string>();
  const walk = (n: TreeNode, depth: number): void => {
    if (depth > MAX_TREE_DEPTH) {
      errors.push(`the workflow is deeper than ${MAX_TREE_DEPTH} nodes (at node ${n.id})`);
      return;
    }
    if (!(NODE_TYPES as readonly string[]).includes(n.type)) {
      errors.push(`node ${n.id}: unknown type ${JSON.stringify(n.type)}`);
      return;
    }
    if (seen.has(n.id)) {
      errors.push(`node ${n.id}: appears twice (a cycle, or two links into one node)`);
      return;
    }
    seen.add(n.id);
    if (depth > 1 && isTrigger(n.type)) errors.push(`${nodeName(n)}: a trigger can only be the first node`);
    const props = propertiesOf(n);
    for (const e of nodeErrors({ type: n.type, properties: props })) errors.push(`${nodeName(n)}: ${e}`);
    if (!outputPorts(n.type).length && n.children.length) errors.push(`${nodeName(n)}: has no output, so it cannot have next nodes`);
    if (n.type === 'splitter') {
      for (const port of ['output1', 'output2']) {
        if (n.children.filter((c) => c.port === port).length > 1) errors.push(`${nodeName(n)}: its '${PORT_LABELS[port]}' output has more than one next node`);
      }
      if (n.children.some((c) => c.port !== 'output1' && c.port !== 'output2'))
        errors.push(`${nodeName(n)}: each next node must say its port (output1 or output2)`);
    }
    for (const c of n.children) walk(c, depth + 1);
  };
  walk(tree, 1);
  return errors;
}

/** propertiesOf reads a tree node's settings back as editor properties (the inverse of settingsOf, for checks). */
export function propertiesOf(n: TreeNode): NodeProperties {
  const s = n.settings ?? ({} as NodeSettings);
  switch (n.type) {
    case 'event':
      return { eventName: n.event_topic ?? '', ...(s.include_machine ? { includeMachine: true } : {}) };
    case 'delay':
      return { delayMS: s.delay_ms };
    case 'delay_until': {
      const [date, time] = (s.delay_until ?? '').split('T');
      return {
        timeHelper: { date, time, timezone: s.delay_until_users_timezone ? CONTACT_ZONE : s.delay_until_timezone },
        delayUntilAnyDate: s.delay_until_any_date,
        delayUntilExclusive: s.delay_until_exclusive,
      };
    }
    case 'splitter':
      return { filters: s.filters, filterConjunction: s.conjunction };
    case 'update_user':
      return { jsonToUpdate: s.user_json };
    case 'segmenter':
      return { segmentId: s.segment_id, segmentOperation: s.segment_operation };
    case 'send_to_workflow':
      return { workflowId: s.workflow_id };
    case 'sender':
      return { templateId: s.template_id, senderPersonaId: s.sender_persona_id };
    default:
      return {};
  }
}

/**
 * delayUntilInstant is when a contact reaching a delay-until node goes on (part 2 §4 delay-until modes), as a UTC
 * instant, or 'exclude' when the contact leaves the workflow. The zone is the node's, or the contact's own with
 * delay_until_users_timezone (UTC when it has none). Modes: exclude tardy — at the date and time, or out if that has
 * passed; allow tardy / at least — at the date and time, or at once if passed; time of day exactly — the next time
 * that time of day comes round in the zone (today if still ahead, else tomorrow).
 */
export function delayUntilInstant(s: NodeSettings, now: Date, contactZone?: string | null): Date | 'exclude' {
  const zone = s.delay_until_users_timezone
    ? recipientZone(contactZone)
    : s.delay_until_timezone && isValidTimezone(s.delay_until_timezone)
      ? s.delay_until_timezone
      : 'UTC';
  const [date, time] = (s.delay_until ?? '').split('T');
  if (s.delay_until_any_date) {
    const today = DateTime.fromJSDate(now, { zone }).toFormat('yyyy-MM-dd');
    const at = wallClockToInstant(`${today}T${time}`, zone);
    if (at.getTime() > now.getTime()) return at;
    const tomorrow = DateTime.fromJSDate(now, { zone }).plus({ days: 1 }).toFormat('yyyy-MM-dd');
    return wallClockToInstant(`${tomorrow}T${time}`, zone);
  }
  const at = wallClockToInstant(`${date}T${time}`, zone);
  if (at.getTime() > now.getTime()) return at;
  return s.delay_until_exclusive ? 'exclude' : now;
}

/** The longest chain of send_to_workflow hand-offs one contact may follow (a guard against cycles between workflows). */
export const MAX_WORKFLOW_HOPS = 10;
