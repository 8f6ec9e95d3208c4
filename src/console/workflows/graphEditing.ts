/**
 * The workflow editor's edits of the display graph (spec part 2 §2 Workflows, §4 Workflow graph rules):
 * adding, moving and deleting nodes, linking an output port to a node's input (the canvas's drag and the settings
 * modal's "Next node" select both go through `connect`, so both make the same graph), and the short text each node
 * shows. The graph's rules and the tree come from src/domain/workflowGraph.ts; this module only edits. Pure.
 */
import {
  DELAY_UNTIL_MODES,
  INPUT_PORT,
  PORT_LABELS,
  CONTACT_ZONE,
  delayUntilMode,
  inputPorts,
  isTrigger,
  nodeLabel,
  nodeTitles,
  outputPorts,
  splitDuration,
  type Display,
  type DisplayLink,
  type DisplayNode,
  type NodeType,
} from '../../domain/workflowGraph';
import { operatorLabel, FILTER_ATTRIBUTES, type UserFilter } from '../../domain/segmentFilter';

/** Where a link starts: a node's output port. */
export interface PortRef {
  nodeId: string;
  portId: string;
}

/** formatDuration shows a delay in ms as its amount and unit, e.g. "2 seconds", "1 hour". */
export function formatDuration(ms: number | undefined): string {
  if (!Number.isFinite(ms)) return '';
  const { amount, unit } = splitDuration(ms as number);
  return `${amount} ${amount === 1 ? unit.slice(0, -1) : unit}`;
}

/** filterSummary shows a filter list the way a person would say it, e.g. "email contains a and first name equals Ann". */
export function filterSummary(filters: UserFilter[] | undefined, conjunction: 'and' | 'or' = 'and'): string {
  return (filters ?? [])
    .map((f) => {
      const spec = FILTER_ATTRIBUTES[f.attribute];
      const attribute = f.attribute.replace(/^contact_/, '').replace(/_/g, ' ');
      const op = f.operator && spec ? operatorLabel(f.operator as never, spec.kind) : (f.operator ?? '');
      return [attribute, op, ...(f.values ?? []).map((v) => String(v ?? ''))].filter(Boolean).join(' ');
    })
    .join(` ${conjunction} `);
}

/**
 * nodeSummary is the short text under a node's label: its event, delay, time, filters, metadata keys, or the name of
 * the segment, workflow or template it uses (`names` maps ids to names; an unknown id shows as "…" + its end).
 */
export function nodeSummary(node: Pick<DisplayNode, 'type' | 'properties'>, names: Record<string, string> = {}): string {
  const p = node.properties ?? {};
  const named = (id: string | undefined) => (id ? (names[id] ?? `…${id.slice(-6)}`) : '');
  switch (node.type) {
    case 'event':
      return p.eventName?.trim() || '(no event name)';
    case 'user_upserted':
      return 'contact created or updated';
    case 'delay':
      return formatDuration(p.delayMS);
    case 'delay_until': {
      const t = p.timeHelper ?? {};
      const zone = t.timezone === CONTACT_ZONE ? 'contact’s zone' : (t.timezone ?? '');
      const mode = delayUntilMode(p.delayUntilAnyDate, p.delayUntilExclusive);
      if (mode === 'time_of_day') return `next ${t.time ?? ''} ${zone}`.trim();
      return `${t.date ?? ''} ${t.time ?? ''} ${zone}${mode === 'exclude_tardy' ? ', exclude tardy' : ''}`.trim();
    }
    case 'splitter':
      return filterSummary(p.filters, p.filterConjunction) || '(no filters)';
    case 'update_user': {
      const keys = Object.keys(p.jsonToUpdate ?? {}).filter((k) => k.trim());
      return keys.length ? `set ${keys.join(', ')}` : '(no keys)';
    }
    case 'segmenter':
      return p.segmentId ? `${p.segmentOperation === 'REMOVE' ? 'remove from' : 'add to'} ${named(p.segmentId)}` : '(no segment)';
    case 'send_to_workflow':
      return p.workflowId ? `to ${named(p.workflowId)}` : '(no workflow)';
    case 'sender':
      return p.templateId ? named(p.templateId) : '(no template)';
    case 'unsubscriber':
      return 'unsubscribe the contact';
    default:
      return '';
  }
}

/** The delay-until modes' labels, by value (for the settings modal and summaries). */
export const DELAY_UNTIL_LABELS = Object.fromEntries(DELAY_UNTIL_MODES.map((m) => [m.value, m.label]));

/** nodeTitles names every node (domain/workflowGraph.ts, where the save errors use the same names). */
export { nodeTitles };

/** portLabel names an output port in the editor: 'match' / 'no match' on a filter, 'next' otherwise. */
export function portLabel(portId: string): string {
  return PORT_LABELS[portId] || 'next';
}

/** triggerOf returns the graph's trigger node (the first, if there are several), or undefined. */
export function triggerOf(display: Display): DisplayNode | undefined {
  return display.nodes.find((n) => isTrigger(n.type));
}

/** The message when a second trigger is added (part 2 §4: only one root trigger is allowed). */
export const ONE_TRIGGER = 'A workflow has one trigger node, and this one already has it.';

/**
 * addNode returns the graph with a new node of `type` (with `properties`) placed right of the last one, 280 px on
 * (room for a filter's output labels), three to a row, or an error when it would be a second trigger.
 */
export function addNode(display: Display, node: Pick<DisplayNode, 'id' | 'type' | 'properties'>): { display: Display } | { error: string } {
  if (isTrigger(node.type) && triggerOf(display)) return { error: ONE_TRIGGER };
  let position = { x: 40, y: 60 };
  if (display.nodes.length) {
    const last = display.nodes[display.nodes.length - 1].position;
    const maxY = Math.max(...display.nodes.map((n) => n.position.y));
    position = last.x + 280 > 600 ? { x: 40, y: maxY + 140 } : { x: last.x + 280, y: last.y };
  }
  return { display: { ...display, nodes: [...display.nodes, { id: node.id, type: node.type as NodeType, position, properties: node.properties }] } };
}

/** moveNode returns the graph with one node at a new position (whole pixels). */
export function moveNode(display: Display, nodeId: string, position: { x: number; y: number }): Display {
  return {
    ...display,
    nodes: display.nodes.map((n) => (n.id === nodeId ? { ...n, position: { x: Math.round(position.x), y: Math.round(position.y) } } : n)),
  };
}

/** updateNode returns the graph with one node's properties replaced. */
export function updateNode(display: Display, nodeId: string, properties: DisplayNode['properties']): Display {
  return { ...display, nodes: display.nodes.map((n) => (n.id === nodeId ? { ...n, properties } : n)) };
}

/** removeNode returns the graph without one node and every link into or out of it (the settings modal's Delete). */
export function removeNode(display: Display, nodeId: string): Display {
  return {
    nodes: display.nodes.filter((n) => n.id !== nodeId),
    links: display.links.filter((l) => l.from.nodeId !== nodeId && l.to.nodeId !== nodeId),
  };
}

/** linksFrom lists the links that leave one output port. */
export function linksFrom(display: Display, from: PortRef): DisplayLink[] {
  return display.links.filter((l) => l.from.nodeId === from.nodeId && l.from.portId === from.portId);
}

/**
 * linkProblem says why an output port may not link to a node (undefined when it may): the node must exist and have
 * an input (a trigger has none: nothing links into a trigger), must not be the node itself, and must not already
 * take a link from another output (each node takes one link in). A link that would replace the port's own link is
 * allowed.
 */
export function linkProblem(display: Display, from: PortRef, toNodeId: string): string | undefined {
  const source = display.nodes.find((n) => n.id === from.nodeId);
  const target = display.nodes.find((n) => n.id === toNodeId);
  if (!source || !outputPorts(source.type).includes(from.portId)) return 'that output does not exist';
  if (!target) return 'that node does not exist';
  if (!inputPorts(target.type).length) return `nothing can link into the trigger (${nodeLabel(target.type)})`;
  if (target.id === source.id) return 'a node cannot link to itself';
  const into = display.links.filter((l) => l.to.nodeId === target.id);
  if (into.some((l) => l.from.nodeId !== from.nodeId || l.from.portId !== from.portId)) return `${nodeLabel(target.type)} already has a link into it`;
  return undefined;
}

/**
 * connect returns the graph with output `from` linked to `toNodeId`'s input (link id `linkId`), replacing the link
 * that output had (part 2 §4: a new link from a splitter output replaces the old one; every output here holds one);
 * `toNodeId` null removes the output's link. Returns an error, and no graph, when linkProblem refuses it.
 */
export function connect(display: Display, from: PortRef, toNodeId: string | null, linkId: string): { display: Display } | { error: string } {
  if (toNodeId !== null) {
    const problem = linkProblem(display, from, toNodeId);
    if (problem) return { error: problem };
  }
  const kept = display.links.filter((l) => !(l.from.nodeId === from.nodeId && l.from.portId === from.portId));
  if (toNodeId === null) return { display: { ...display, links: kept } };
  const existing = linksFrom(display, from).find((l) => l.to.nodeId === toNodeId);
  const link: DisplayLink = existing ?? { id: linkId, from: { ...from }, to: { nodeId: toNodeId, portId: INPUT_PORT } };
  return { display: { ...display, links: [...kept, link] } };
}

/** nextNodeChoices lists the nodes an output port may link to (linkProblem finds nothing), in the graph's order. */
export function nextNodeChoices(display: Display, from: PortRef): DisplayNode[] {
  return display.nodes.filter((n) => !linkProblem(display, from, n.id));
}

/**
 * nodesInWords rewrites save errors that name nodes by id (the server's checks of the tree the editor sent: 'node
 * 1342e406-… (Delay): …', 'node 1342e406-…: no template with id … in this project') to name them by their titles in
 * the editor ('Delay 2: …'), and lists the ids of the nodes named, for the canvas to mark.
 */
export function nodesInWords(errors: string[], display: Display): { errors: string[]; nodeIds: string[] } {
  const titles = nodeTitles(display);
  const named = new Set<string>();
  const out = errors.map((e) =>
    e.replace(/\bnode ([\w-]+)(?: \([^)]*\))?/g, (whole, id: string) => {
      const title = titles.get(id);
      if (!title) return whole;
      named.add(id);
      return title;
    }),
  );
  return { errors: out, nodeIds: [...named] };
}
