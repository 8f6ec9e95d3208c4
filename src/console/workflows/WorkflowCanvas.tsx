/**
 * The workflow editor's node canvas (spec part 2 §2 Workflows, §4 Workflow graph rules): a @joint/core
 * dia.Graph drawn by a dia.Paper from the editor's display graph, which stays the one source of truth — every user
 * gesture (moving a node, dragging a link from an output port to an input port, removing a link) is handed back as
 * an edit, and the graph is redrawn from the new display. Each node shows its label, a short summary of its
 * settings, its ports (a filter's outputs labelled 'match' and 'no match') and a settings icon whose click toggles
 * the node's selection; a double click opens its settings. New links are checked with linkProblem (graphEditing.ts),
 * so nothing links into a trigger (which has no input port anyway), to itself, or into a node that has its link.
 * This module is the only importer of @joint/core and is loaded with the editor alone.
 */
import { useEffect, useRef } from 'react';
import { Box } from '@mui/material';
import { dia, g, linkTools, shapes } from '@joint/core';
import { INPUT_PORT, PORT_LABELS, inputPorts, nodeLabel, outputPorts, type Display } from '../../domain/workflowGraph';
import { linkProblem, nodeSummary, type PortRef } from './graphEditing';

/** The node box size (px). */
export const NODE_SIZE = { width: 200, height: 64 } as const;
const BLUE = '#1565c0';
const SELECTED = '#e65100';
const PROBLEM = '#c62828';
/** Material's "settings" gear (24×24), drawn at 0.75 scale. */
const GEAR =
  'M19.14 12.94c.04-.3.06-.61.06-.94 0-.32-.02-.64-.07-.94l2.03-1.58c.18-.14.23-.41.12-.61l-1.92-3.32c-.12-.22-.37-.29-.59-.22l-2.39.96c-.5-.38-1.03-.7-1.62-.94l-.36-2.54c-.04-.24-.24-.41-.48-.41h-3.84c-.24 0-.43.17-.47.41l-.36 2.54c-.59.24-1.13.57-1.62.94l-2.39-.96c-.22-.08-.47 0-.59.22L2.74 8.87c-.12.21-.08.47.12.61l2.03 1.58c-.05.3-.09.63-.09.94s.02.64.07.94l-2.03 1.58c-.18.14-.23.41-.12.61l1.92 3.32c.12.22.37.29.59.22l2.39-.96c.5.38 1.03.7 1.62.94l.36 2.54c.05.24.24.41.48.41h3.84c.24 0 .44-.17.47-.41l.36-2.54c.59-.24 1.13-.56 1.62-.94l2.39.96c.22.08.47 0 .59-.22l1.92-3.32c.12-.22.07-.47-.12-.61l-2.01-1.58zM12 15.6c-1.98 0-3.6-1.62-3.6-3.6s1.62-3.6 3.6-3.6 3.6 1.62 3.6 3.6-1.62 3.6-3.6 3.6z';
const FONT = 'Roboto, Helvetica, Arial, sans-serif';

const WorkflowNode = dia.Element.define(
  'mw.WorkflowNode',
  {
    size: { ...NODE_SIZE },
    attrs: {
      body: { width: 'calc(w)', height: 'calc(h)', rx: 6, ry: 6, fill: '#ffffff', stroke: BLUE, strokeWidth: 1.5 },
      title: { x: 10, y: 22, fontSize: 13, fontWeight: 'bold', fontFamily: FONT, fill: '#1a1a1a', text: '' },
      summary: { x: 10, y: 44, fontSize: 12, fontFamily: FONT, fill: '#424242', text: '' },
      settings: { transform: 'translate(calc(w - 26), 5)', cursor: 'pointer', event: 'element:settings:pointerdown' },
      settingsHit: { width: 20, height: 20, fill: 'transparent' },
      settingsIcon: { d: GEAR, fill: '#555555', transform: 'translate(1, 1) scale(0.75)' },
    },
    ports: {
      groups: {
        in: {
          position: { name: 'left' },
          attrs: { portBody: { magnet: 'passive', r: 7, fill: '#ffffff', stroke: BLUE, strokeWidth: 2 } },
          markup: [{ tagName: 'circle', selector: 'portBody' }],
        },
        out: {
          position: { name: 'right' },
          attrs: { portBody: { magnet: true, r: 7, fill: BLUE, stroke: '#ffffff', strokeWidth: 2, cursor: 'crosshair' } },
          markup: [{ tagName: 'circle', selector: 'portBody' }],
          label: { position: { name: 'right', args: { x: 10, y: -10 } }, markup: [{ tagName: 'text', selector: 'label' }] },
        },
      },
    },
  },
  {
    markup: [
      { tagName: 'rect', selector: 'body' },
      { tagName: 'text', selector: 'title' },
      { tagName: 'text', selector: 'summary' },
      {
        tagName: 'g',
        selector: 'settings',
        children: [
          { tagName: 'rect', selector: 'settingsHit' },
          { tagName: 'path', selector: 'settingsIcon' },
        ],
      },
    ],
  },
);

const cellNamespace = { ...shapes, mw: { WorkflowNode } };

const LINK_ATTRS = { line: { stroke: '#546e7a', strokeWidth: 2, targetMarker: { type: 'path', d: 'M 10 -5 0 0 10 5 z' } } };

function portItems(type: string) {
  return [
    ...inputPorts(type).map((id) => ({ id, group: 'in' })),
    ...outputPorts(type).map((id) => ({
      id,
      group: 'out',
      attrs: { label: { text: PORT_LABELS[id] ?? '', fontSize: 11, fontFamily: FONT, fill: '#333333' } },
    })),
  ];
}

/** cut shortens a summary so it fits the node's width (about 26 characters at 12 px). */
function cut(text: string, max = 26): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The canvas's props: the graph to draw and the edits its gestures make. */
export interface WorkflowCanvasProps {
  display: Display;
  /** Node titles (nodeTitles) by node id. */
  titles: Map<string, string>;
  /** Names of the templates, segments and workflows nodes use, by id (for the summaries). */
  names: Record<string, string>;
  selectedId: string | null;
  /** Nodes the last save's errors named: drawn in red. */
  problemIds?: ReadonlySet<string>;
  onMove: (nodeId: string, position: { x: number; y: number }) => void;
  onConnect: (from: PortRef, toNodeId: string) => void;
  onRemoveLink: (linkId: string) => void;
  onToggleSelect: (nodeId: string) => void;
  onOpenSettings: (nodeId: string) => void;
}

/** sync makes the joint graph draw `display`: adds, updates and removes elements and links by id. */
function sync(graph: dia.Graph, { display, titles, names, selectedId, problemIds }: WorkflowCanvasProps): void {
  const nodeIds = new Set(display.nodes.map((n) => n.id));
  const linkIds = new Set(display.links.map((l) => l.id));
  for (const link of graph.getLinks()) if (!linkIds.has(String(link.id))) link.remove();
  for (const el of graph.getElements()) if (!nodeIds.has(String(el.id))) el.remove();
  for (const n of display.nodes) {
    let el = graph.getCell(n.id) as dia.Element | undefined;
    if (!el) {
      el = new WorkflowNode({ id: n.id, position: { ...n.position }, ports: { items: portItems(n.type) } });
      el.addTo(graph);
    } else {
      const p = el.position();
      if (p.x !== n.position.x || p.y !== n.position.y) el.position(n.position.x, n.position.y);
    }
    const selected = n.id === selectedId;
    const problem = !!problemIds?.has(n.id);
    el.attr({
      body: { stroke: problem ? PROBLEM : selected ? SELECTED : BLUE, strokeWidth: selected || problem ? 3 : 1.5, fill: problem ? '#fdecea' : '#ffffff' },
      title: { text: cut(titles.get(n.id) ?? nodeLabel(n.type), 22) },
      summary: { text: cut(nodeSummary(n, names)) },
      root: { title: `${titles.get(n.id) ?? nodeLabel(n.type)}: ${nodeSummary(n, names)}`, 'data-node-type': n.type, 'data-problem': problem ? 'true' : null },
    });
  }
  for (const l of display.links) {
    if (graph.getCell(l.id)) continue;
    if (!nodeIds.has(l.from.nodeId) || !nodeIds.has(l.to.nodeId)) continue;
    new shapes.standard.Link({
      id: l.id,
      source: { id: l.from.nodeId, port: l.from.portId },
      target: { id: l.to.nodeId, port: l.to.portId },
      attrs: LINK_ATTRS,
    }).addTo(graph);
  }
}

/** WorkflowCanvas draws the display graph with @joint/core and reports the user's gestures as edits. */
export default function WorkflowCanvas(props: WorkflowCanvasProps) {
  const host = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const graphRef = useRef<dia.Graph | null>(null);
  const paperRef = useRef<dia.Paper | null>(null);
  const live = useRef(props);
  live.current = props;

  useEffect(() => {
    const graph = new dia.Graph({}, { cellNamespace });
    const fit = () => {
      const paper = paperRef.current;
      if (!paper || !scroller.current) return;
      paper.fitToContent({ padding: 40, minWidth: scroller.current.clientWidth, minHeight: 480, allowNewOrigin: 'negative' });
    };
    const paper = new dia.Paper({
      el: host.current!,
      model: graph,
      cellViewNamespace: cellNamespace,
      width: scroller.current?.clientWidth || 800,
      height: 480,
      gridSize: 10,
      background: { color: '#fafafa' },
      linkPinning: false,
      snapLinks: { radius: 30 },
      markAvailable: true,
      defaultLink: () => new shapes.standard.Link({ attrs: LINK_ATTRS }),
      defaultConnectionPoint: { name: 'boundary' },
      defaultRouter: { name: 'rightAngle', args: { margin: 20 } },
      defaultConnector: { name: 'rounded' },
      restrictTranslate: () => new g.Rect(0, 0, 4000, 4000),
      interactive: (view) =>
        view.model.isLink()
          ? { linkMove: false, labelMove: false, arrowheadMove: false, vertexAdd: false, vertexMove: false, vertexRemove: false }
          : { elementMove: true, addLinkFromMagnet: true },
      validateMagnet: (view, magnet) => view.findAttribute('port-group', magnet) === 'out',
      validateConnection: (viewS, magnetS, viewT, magnetT, end) => {
        if (end !== 'target' || !magnetS || !magnetT || viewT.model.isLink()) return false;
        if (viewT.findAttribute('port', magnetT) !== INPUT_PORT) return false;
        const from = { nodeId: String(viewS.model.id), portId: String(viewS.findAttribute('port', magnetS)) };
        return !linkProblem(live.current.display, from, String(viewT.model.id));
      },
    });
    graphRef.current = graph;
    paperRef.current = paper;

    paper.on('link:connect', (linkView: dia.LinkView) => {
      const link = linkView.model;
      const source = link.source();
      const target = link.target();
      // The drawn link is temporary: the edit adds the display's own link, drawn by the next sync.
      setTimeout(() => link.remove(), 0);
      if (source.id && source.port && target.id) live.current.onConnect({ nodeId: String(source.id), portId: String(source.port) }, String(target.id));
    });
    paper.on('element:pointerup', (view: dia.ElementView) => {
      const id = String(view.model.id);
      const node = live.current.display.nodes.find((n) => n.id === id);
      const p = view.model.position();
      if (node && (node.position.x !== p.x || node.position.y !== p.y)) live.current.onMove(id, { x: p.x, y: p.y });
      fit();
    });
    paper.on('element:pointerdblclick', (view: dia.ElementView) => live.current.onOpenSettings(String(view.model.id)));
    paper.on('element:settings:pointerdown', (view: dia.ElementView, evt: dia.Event) => {
      evt.stopPropagation();
      live.current.onToggleSelect(String(view.model.id));
    });
    paper.on('link:mouseenter', (view: dia.LinkView) => {
      view.addTools(
        new dia.ToolsView({
          tools: [new linkTools.Remove({ distance: '50%', action: (_evt, v) => live.current.onRemoveLink(String(v.model.id)) })],
        }),
      );
    });
    paper.on('link:mouseleave', (view: dia.LinkView) => view.removeTools());

    sync(graph, live.current);
    fit();
    const resize = new ResizeObserver(fit);
    if (scroller.current) resize.observe(scroller.current);
    return () => {
      resize.disconnect();
      paper.remove();
      graph.clear();
      graphRef.current = null;
      paperRef.current = null;
    };
  }, []);

  const { display, titles, names, selectedId, problemIds } = props;
  useEffect(() => {
    if (!graphRef.current || !paperRef.current) return;
    sync(graphRef.current, live.current);
    if (scroller.current) paperRef.current.fitToContent({ padding: 40, minWidth: scroller.current.clientWidth, minHeight: 480, allowNewOrigin: 'negative' });
  }, [display, titles, names, selectedId, problemIds]);

  return (
    <Box
      ref={scroller}
      role="figure"
      aria-label="Workflow canvas: drag from a node's output port (right) to another node's input port (left) to link them; double-click a node for its settings"
      sx={{ overflow: 'auto', border: 1, borderColor: 'divider', borderRadius: 1, minHeight: 480, bgcolor: '#fafafa' }}
      data-testid="workflow-canvas"
    >
      <div ref={host} />
    </Box>
  );
}
