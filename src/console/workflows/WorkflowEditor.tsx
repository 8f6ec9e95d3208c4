/**
 * The workflow editor at /components/workflows/new and /components/workflows/edit/{id} (spec part 2 §2 Workflows, §4
 * Workflow save and graph rules, §5 Workflow, §7 Workflows, §8): the name, Save, 'Run segment' (once saved),
 * the toolbar of the spec's groups, the canvas (WorkflowCanvas, @joint/core), a keyboard-reachable list of the nodes
 * with their settings buttons, the node-settings modal, and in edit mode the Runs panel with each contact's path.
 * The display graph in this component's state is the one source of truth: the canvas and the settings modal both
 * edit it through graphEditing.ts, it is saved as `display` with the tree displayToTree makes of it, and it is read
 * back as it was saved. A new workflow gets a client-generated v4 UUID; after its first save the page moves to its
 * edit route. 'Run segment' enters contacts at the trigger of the last-saved graph, so it is disabled (with a note)
 * while the name or graph has unsaved changes. Leaving the page stops a save's wait: no toast or move follows it.
 * Anything that throws while drawing shows 'an error occurred while loading your workflow' and the message.
 */
import { Component, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useDataProvider, useNotify } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  ButtonGroup,
  Card,
  CardContent,
  CircularProgress,
  List,
  ListItem,
  ListItemText,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import SettingsIcon from '@mui/icons-material/Settings';
import {
  TOOLBAR,
  defaultProperties,
  displayOf,
  displayToTree,
  nodeErrors,
  nodeLabel,
  outputPorts,
  type Display,
  type DisplayNode,
  type NodeType,
} from '../../domain/workflowGraph';
import type { ListRow } from '../data/apiTypes';
import type { AppDataProvider } from '../data/dataProvider';
import { uuidv4 } from '../uuid';
import {
  ONE_TRIGGER,
  addNode,
  connect,
  linksFrom,
  moveNode,
  nodeSummary,
  nodesInWords,
  nodeTitles,
  removeNode,
  triggerOf,
  updateNode,
  type PortRef,
} from './graphEditing';
import { NodeSettingsDialog, type NodeSettingsResult } from './NodeSettingsDialog';
import { RunSegmentDialog } from './RunSegmentDialog';
import { RunList } from './RunList';
import { BEHIND_ANOTHER_JOB, WORKFLOW_NAME_REQUIRED, saveWorkflow, workflowInput, type SaveDeps } from './saveFlow';
import { WORKFLOW_JOB_WAIT, gatewayJobWaitDeps } from '../data/jobWait';
import { useUnmountSignal } from '../data/useUnmountSignal';
import WorkflowCanvas from './WorkflowCanvas';

/** The spec's text of a workflow that cannot be drawn (part 2 §2 Workflows). */
export const LOAD_ERROR = 'an error occurred while loading your workflow';

/** WorkflowErrorBoundary shows LOAD_ERROR and the message instead of an editor that threw while rendering. */
export class WorkflowErrorBoundary extends Component<{ children: ReactNode }, { error?: Error }> {
  state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  render() {
    if (this.state.error)
      return (
        <Alert severity="error">
          {LOAD_ERROR}: {this.state.error.message}
        </Alert>
      );
    return this.props.children;
  }
}

/** Saves are not retried: a retried save would queue a second job; a 503 is waited out on the job log instead. */
const NO_RETRY = { retries: 0, delayMs: 0 };

/** A saved workflow (a listWorkflows row, as generated). */
type Workflow = ListRow<'listWorkflows'>;

/** useReferenceNames looks up the names of the templates, segments and workflows the nodes use (for summaries). */
function useReferenceNames(display: Display): Record<string, string> {
  const dataProvider = useDataProvider<AppDataProvider>();
  const [names, setNames] = useState<Record<string, string>>({});
  const wanted = useMemo(() => {
    const ids = { templates: new Set<string>(), segments: new Set<string>(), workflows: new Set<string>() };
    for (const n of display.nodes) {
      if (n.properties.templateId) ids.templates.add(n.properties.templateId);
      if (n.properties.segmentId) ids.segments.add(n.properties.segmentId);
      if (n.properties.workflowId) ids.workflows.add(n.properties.workflowId);
    }
    return ids;
  }, [display]);
  useEffect(() => {
    const ops = [
      ['templates', 'listTemplates'],
      ['segments', 'listSegments'],
      ['workflows', 'listWorkflows'],
    ] as const;
    for (const [kind, op] of ops) {
      const missing = [...wanted[kind]].filter((id) => !(id in names) && /^[0-9a-f-]{36}$/i.test(id));
      if (!missing.length) continue;
      // Mark them asked for at once, so a failed or slow look-up is not repeated on every render.
      setNames((prev) => ({ ...prev, ...Object.fromEntries(missing.map((id) => [id, prev[id] ?? `…${id.slice(-6)}`])) }));
      dataProvider
        .callGateway(op, { query: { ids: missing.join(','), limit: missing.length, ...(op === 'listSegments' ? { with_counts: false } : {}) } })
        .then(({ data }) => setNames((prev) => ({ ...prev, ...Object.fromEntries(data.map((r) => [String(r.id), r.name])) })))
        .catch(() => undefined);
    }
  }, [wanted, names, dataProvider]);
  return names;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The editor's props: a new workflow, or the one whose id is in the route. */
export interface WorkflowEditorProps {
  mode: 'create' | 'edit';
}

/** WorkflowEditor is the page; it loads the workflow in edit mode and renders the editor inside the error boundary. */
export default function WorkflowEditor({ mode }: WorkflowEditorProps) {
  const params = useParams();
  const dataProvider = useDataProvider<AppDataProvider>();
  const [loaded, setLoaded] = useState<{ workflow?: Workflow; error?: string }>({});
  const routeId = mode === 'edit' ? params.id : undefined;

  useEffect(() => {
    if (!routeId) return;
    let live = true;
    setLoaded({});
    dataProvider
      .callGateway('listWorkflows', { query: { ids: routeId, limit: 1 } })
      .then(({ data }) => {
        if (live) setLoaded(data[0] ? { workflow: data[0] } : { error: `no workflow with id ${routeId}` });
      })
      .catch((e: Error) => {
        if (live) setLoaded({ error: e.message });
      });
    return () => {
      live = false;
    };
  }, [routeId, dataProvider]);

  return (
    <Box>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {mode === 'create' ? 'New Workflow' : 'Edit Workflow'}
      </Typography>
      <WorkflowErrorBoundary key={routeId ?? 'new'}>
        {mode === 'edit' && loaded.error && (
          <Alert severity="error">
            {LOAD_ERROR}: {loaded.error}
          </Alert>
        )}
        {mode === 'edit' && !loaded.error && !loaded.workflow && <CircularProgress aria-label="Loading the workflow" />}
        {mode === 'edit' && loaded.workflow && <EditorBody key={loaded.workflow.id} workflow={loaded.workflow} />}
        {mode === 'create' && <EditorBody />}
      </WorkflowErrorBoundary>
    </Box>
  );
}

/** The note beside a disabled 'Run segment' (part 2 §2 Workflows: the saved workflow is the one that runs). */
export const RUN_SEGMENT_UNSAVED = 'Save your changes before running a segment: the saved workflow is the one that runs.';

/** EditorBody is the editor of one workflow (a new one when `workflow` is undefined). */
function EditorBody({ workflow }: { workflow?: Workflow }) {
  const isNew = !workflow;
  const [id] = useState(() => workflow?.id ?? uuidv4());
  const [name, setName] = useState(workflow?.name ?? '');
  // displayOf reads what was saved; anything it cannot read throws here and the boundary shows it.
  const [loadedDisplay] = useState<Display>(() =>
    workflow ? displayOf(workflow.display as { nodes?: unknown[]; links?: unknown[] }) : { nodes: [], links: [] },
  );
  const [display, setDisplay] = useState<Display>(loadedDisplay);
  // The name and graph as last saved (undefined until a new workflow's first save): Run segment uses its trigger.
  const [saved, setSaved] = useState<{ name: string; display: Display } | undefined>(workflow ? { name: workflow.name, display: loadedDisplay } : undefined);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [settingsFor, setSettingsFor] = useState<string | null>(null);
  const [runSegment, setRunSegment] = useState(false);
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<{ message: string; errors: string[] } | null>(null);
  /** The nodes the last failed save named, marked on the canvas and in the node list. */
  const [problemIds, setProblemIds] = useState<ReadonlySet<string>>(() => new Set());
  const [notice, setNotice] = useState('');
  const [savedAt, setSavedAt] = useState(0);
  const [enabled, setEnabled] = useState(workflow?.enabled ?? true);
  const [runsKey, setRunsKey] = useState(0);
  const unmountSignal = useUnmountSignal();
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const navigate = useNavigate();
  const names = useReferenceNames(display);
  const titles = useMemo(() => nodeTitles(display), [display]);
  const trigger = triggerOf(display);
  // Run segment enters contacts at the trigger without their event: on an event-triggered workflow the page says so, so
  // no one takes it for a way to fire the event (the spec keeps the button on every saved workflow).
  const savedTrigger = saved ? triggerOf(saved.display) : undefined;
  const unsaved = useMemo(() => !saved || saved.name !== name.trim() || JSON.stringify(saved.display) !== JSON.stringify(display), [saved, name, display]);

  const add = (type: NodeType) => {
    const nodeId = uuidv4();
    const result = addNode(display, { id: nodeId, type, properties: defaultProperties(type, today()) });
    if ('error' in result) {
      notify(result.error, { type: 'warning' });
      return;
    }
    // A new step follows the selected node: linked from its first free output, then selected itself.
    let next = result.display;
    const from = selectedId ? display.nodes.find((n) => n.id === selectedId) : undefined;
    const port = from && outputPorts(from.type).find((p) => linksFrom(next, { nodeId: from.id, portId: p }).length === 0);
    if (from && port) {
      const linked = connect(next, { nodeId: from.id, portId: port }, nodeId, uuidv4());
      if (!('error' in linked)) next = linked.display;
    }
    setDisplay(next);
    setSelectedId(nodeId);
    setSettingsFor(nodeId);
  };

  const onConnect = useCallback(
    (from: PortRef, toNodeId: string) => {
      setDisplay((d) => {
        const r = connect(d, from, toNodeId, uuidv4());
        if ('error' in r) {
          notify(`That link is not allowed: ${r.error}`, { type: 'warning' });
          return d;
        }
        return r.display;
      });
    },
    [notify],
  );

  const applySettings = (nodeId: string, result: NodeSettingsResult) => {
    let d = updateNode(display, nodeId, result.properties);
    for (const [portId, to] of Object.entries(result.next)) {
      const current = d.links.find((l) => l.from.nodeId === nodeId && l.from.portId === portId)?.to.nodeId ?? null;
      if (current === to) continue;
      const r = connect(d, { nodeId, portId }, to, uuidv4());
      if ('error' in r) {
        notify(`That link is not allowed: ${r.error}`, { type: 'warning' });
        return;
      }
      d = r.display;
    }
    setDisplay(d);
    setSettingsFor(null);
  };

  const save = async () => {
    setAttempted(true);
    setProblem(null);
    setProblemIds(new Set());
    setNotice('');
    setSaving(true);
    const signal = unmountSignal();
    const deps: SaveDeps = {
      ...gatewayJobWaitDeps(dataProvider),
      validate: async (body) => {
        await dataProvider.callGateway('validateWorkflow', { body: workflowInput(body) }, NO_RETRY);
      },
      save: async (body) => (await dataProvider.callGateway('saveWorkflow', { body: workflowInput(body) }, NO_RETRY)).data,
      onBehind: () => {
        setNotice(BEHIND_ANOTHER_JOB);
        notify(BEHIND_ANOTHER_JOB, { type: 'info', autoHideDuration: 10_000 });
      },
    };
    const sent = { name: name.trim(), display };
    try {
      const result = await saveWorkflow(deps, { id, name, display }, WORKFLOW_JOB_WAIT, signal);
      if (signal.aborted) return;
      if (result.ok) {
        notify(`Successfully saved workflow ‘${sent.name}’`, { type: 'success' });
        setSaved(sent);
        setSavedAt(Date.now());
        setEnabled(true);
        if (isNew) navigate(`/components/workflows/edit/${id}`);
        return;
      }
      // The errors name nodes by their titles, and the nodes they name are marked on the canvas.
      const worded = nodesInWords(result.errors, sent.display);
      const checked = displayToTree(sent.display);
      const ids = new Set([...worded.nodeIds, ...(checked.tree ? [] : checked.nodeIds)]);
      setProblemIds(ids);
      if (ids.size) setSelectedId([...ids][0]);
      if (result.stage !== 'name') setProblem({ message: result.message, errors: worded.errors });
      notify(result.stage === 'graph' || result.stage === 'validation' ? `${result.message}: ${worded.errors.join('; ')}` : result.message, {
        type: result.stage === 'timeout' || result.stage === 'unreadable' ? 'warning' : 'error',
      });
    } catch (error) {
      if (signal.aborted) return;
      const message = `Couldn’t save workflow ‘${name.trim()}’: ${(error as Error).message}`;
      setProblem({ message, errors: [] });
      notify(message, { type: 'error' });
    } finally {
      setSaving(false);
      setNotice('');
    }
  };

  const nameError = attempted && !name.trim() ? WORKFLOW_NAME_REQUIRED : undefined;
  const editing = settingsFor ? display.nodes.find((n) => n.id === settingsFor) : undefined;

  return (
    <Stack spacing={2}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
        <TextField
          id="workflow-name"
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={!!nameError}
          helperText={nameError}
          sx={{ width: { xs: '100%', sm: 420 } }}
          slotProps={{ htmlInput: { maxLength: 500 } }}
        />
        <Button variant="contained" onClick={save} disabled={saving} sx={{ height: 56 }}>
          Save
        </Button>
        {saved && (
          <Button
            variant="outlined"
            onClick={() => setRunSegment(true)}
            disabled={saving || unsaved}
            sx={{ height: 56 }}
            aria-describedby={unsaved ? 'run-segment-unsaved' : savedTrigger?.type === 'event' ? 'run-segment-event' : undefined}
          >
            Run segment
          </Button>
        )}
        {saved && !unsaved && savedTrigger?.type === 'event' && (
          <Typography id="run-segment-event" variant="body2" color="text.secondary" sx={{ alignSelf: { sm: 'center' }, maxWidth: 360 }}>
            This workflow starts when a contact has the event ‘{savedTrigger.properties.eventName}’. Run segment sends a segment’s contacts through it now, as
            if each had that event.
          </Typography>
        )}
        {saved && unsaved && (
          <Typography id="run-segment-unsaved" variant="body2" color="text.secondary" sx={{ alignSelf: { sm: 'center' }, maxWidth: 320 }}>
            {RUN_SEGMENT_UNSAVED}
          </Typography>
        )}
      </Stack>
      {saving && (
        <Alert severity="info" icon={<CircularProgress size={18} />}>
          {notice || 'Saving: waiting for the save job to finish. Please keep this page open.'}
        </Alert>
      )}
      {problem && (
        <Alert severity="error" aria-label="Save problems">
          <Typography variant="body2" sx={{ fontWeight: 'bold' }}>
            {problem.message}
          </Typography>
          {problem.errors.length > 0 && (
            <Box component="ul" sx={{ m: 0, pl: 2 }}>
              {problem.errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </Box>
          )}
        </Alert>
      )}
      {!enabled && <Alert severity="warning">This workflow is disabled: it takes no new contacts. Saving it enables it again.</Alert>}

      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: 'stretch' }}>
        <Paper variant="outlined" component="nav" aria-label="Node toolbar" sx={{ p: 1.5, width: { md: 190 }, flexShrink: 0 }}>
          {TOOLBAR.map((group) => (
            <Box key={group.group} sx={{ mb: 1.5 }}>
              <Typography variant="subtitle2" component="h2">
                {group.group}
              </Typography>
              <ButtonGroup orientation="vertical" size="small" variant="text" aria-label={group.group} fullWidth>
                {group.items.map((item) => (
                  <Button
                    key={item.type}
                    onClick={() => add(item.type)}
                    disabled={group.group === 'Triggers' && !!trigger}
                    sx={{ justifyContent: 'flex-start', textTransform: 'none' }}
                  >
                    {item.label}
                  </Button>
                ))}
              </ButtonGroup>
              {group.group === 'Triggers' && trigger && (
                <Typography variant="caption" color="text.secondary">
                  {ONE_TRIGGER}
                </Typography>
              )}
            </Box>
          ))}
        </Paper>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <WorkflowCanvas
            display={display}
            titles={titles}
            names={names}
            selectedId={selectedId}
            problemIds={problemIds}
            onMove={(nodeId, position) => setDisplay((d) => moveNode(d, nodeId, position))}
            onConnect={onConnect}
            onRemoveLink={(linkId) => setDisplay((d) => ({ ...d, links: d.links.filter((l) => l.id !== linkId) }))}
            onToggleSelect={(nodeId) => setSelectedId((s) => (s === nodeId ? null : nodeId))}
            onOpenSettings={setSettingsFor}
          />
        </Box>
      </Stack>

      <NodeList display={display} titles={titles} names={names} selectedId={selectedId} problemIds={problemIds} onOpen={setSettingsFor} />

      {!isNew && <RunList workflowId={id} titles={titles} heading="Runs" reloadKey={`${savedAt}-${runsKey}`} />}

      {editing && (
        <NodeSettingsDialog
          key={editing.id}
          node={editing}
          display={display}
          titles={titles}
          names={names}
          workflowId={id}
          onOk={(result) => applySettings(editing.id, result)}
          onDelete={() => {
            setDisplay((d) => removeNode(d, editing.id));
            if (selectedId === editing.id) setSelectedId(null);
            setSettingsFor(null);
          }}
          onClose={() => setSettingsFor(null)}
        />
      )}
      {runSegment && saved && (
        <RunSegmentDialog
          workflowId={id}
          triggerId={triggerOf(saved.display)?.id}
          onSubmitted={() => setRunsKey((k) => k + 1)}
          onClose={() => setRunSegment(false)}
        />
      )}
    </Stack>
  );
}

/** NodeList lists the nodes with their summaries, what they still need, and a settings button each (keyboard access). */
function NodeList({
  display,
  titles,
  names,
  selectedId,
  problemIds,
  onOpen,
}: {
  display: Display;
  titles: Map<string, string>;
  names: Record<string, string>;
  selectedId: string | null;
  problemIds: ReadonlySet<string>;
  onOpen: (id: string) => void;
}) {
  const next = (n: DisplayNode) =>
    display.links
      .filter((l) => l.from.nodeId === n.id)
      .map((l) => `${l.from.portId === 'output1' ? 'match → ' : l.from.portId === 'output2' ? 'no match → ' : '→ '}${titles.get(l.to.nodeId) ?? l.to.nodeId}`)
      .join(', ');
  return (
    <Card variant="outlined" component="section" aria-labelledby="workflow-nodes-heading">
      <CardContent>
        <Typography variant="h6" component="h2" id="workflow-nodes-heading">
          Nodes
        </Typography>
        {!display.nodes.length && <Typography>Add a trigger from the toolbar to start, then the steps that follow it.</Typography>}
        <List dense aria-label="Workflow nodes">
          {display.nodes.map((n) => {
            const title = titles.get(n.id) ?? nodeLabel(n.type);
            const missing = nodeErrors(n);
            return (
              <ListItem
                key={n.id}
                sx={problemIds.has(n.id) ? { bgcolor: '#fdecea' } : n.id === selectedId ? { bgcolor: 'action.selected' } : undefined}
                aria-current={n.id === selectedId ? 'true' : undefined}
                data-problem={problemIds.has(n.id) ? 'true' : undefined}
                secondaryAction={
                  <Button size="small" startIcon={<SettingsIcon />} onClick={() => onOpen(n.id)} aria-label={`Settings of ${title}`}>
                    Settings
                  </Button>
                }
              >
                <ListItemText
                  primary={`${title}: ${nodeSummary(n, names)}${problemIds.has(n.id) ? ' (see the save problems above)' : ''}`}
                  secondary={[next(n), missing.length ? `needs: ${missing.join('; ')}` : ''].filter(Boolean).join(' · ') || undefined}
                />
              </ListItem>
            );
          })}
        </List>
      </CardContent>
    </Card>
  );
}
