/**
 * The node-settings modal of the workflow editor (spec part 2 §2 Workflows, §4 Workflow graph rules, §5 Workflow, §9):
 * one form per node type — event trigger (event name); delay (amount of at least 1 and a unit, stored in
 * ms); delay until (date, time every 15 minutes, time zone with the contact's own first, and the three modes);
 * filter (the segment filter builder, and/or); segmentation (segment and ADD/REMOVE); update metadata (up to 5
 * key/value pairs, values read as JSON when they are); unsubscribe (nothing to set); to workflow (another workflow);
 * send (template and sender persona). Each output port has a "Next node" select, the keyboard's way to draw the
 * link a drag on the canvas draws (both go through connect()). OK is disabled while nodeErrors finds anything, and
 * the errors are listed; Delete removes the node and its links.
 */
import { useMemo, useState } from 'react';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  IconButton,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import DeleteIcon from '@mui/icons-material/Delete';
import {
  CONTACT_ZONE,
  DELAY_UNTIL_MODES,
  DURATION_UNITS,
  MAX_USER_JSON_PAIRS,
  countsMachines,
  delayUntilMode,
  nodeErrors,
  nodeLabel,
  outputPorts,
  splitDuration,
  type Display,
  type DisplayNode,
  type DurationUnit,
  type NodeProperties,
} from '../../domain/workflowGraph';
import { normalizeRows, SEGMENT_FILTER_ATTRIBUTES, toUserFilters, type BuilderRow, type UserFilter } from '../../domain/segmentFilter';
import { timeOfDayOptions, timezoneOptions } from '../../domain/sendTime';
import { parseMetadataValue } from '../../domain/contactImport';
import { FilterBuilder, JoinSelect } from '../resources/segments/FilterBuilder';
import { PickList, usePickSource, type PickSource } from '../resources/shared/PickList';
import { linksFrom, nextNodeChoices, nodeSummary, portLabel } from './graphEditing';

/** What OK hands back: the node's new properties and, per output port, the node it links to (null: none). */
export interface NodeSettingsResult {
  properties: NodeProperties;
  next: Record<string, string | null>;
}

/** The modal's props: the node, the whole graph (for the next-node choices), and what OK and Delete do. */
export interface NodeSettingsDialogProps {
  node: DisplayNode;
  display: Display;
  titles: Map<string, string>;
  names: Record<string, string>;
  /** The workflow being edited (a "To workflow" node may not name it). */
  workflowId: string;
  onOk: (result: NodeSettingsResult) => void;
  onDelete: () => void;
  onClose: () => void;
}

const TIME_OPTIONS = timeOfDayOptions();

function rowsOf(filters: UserFilter[] | undefined): BuilderRow[] {
  return normalizeRows(
    (filters ?? []).map((f) => ({
      attribute: f.attribute,
      operator: f.operator ?? '',
      values: (f.values ?? []).map((v) => (v === null || v === undefined ? '' : String(v))),
      ...(f.include_machine ? { includeMachine: true } : {}),
    })),
  );
}

const showValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function EventSettings({ p, set }: { p: NodeProperties; set: (p: NodeProperties) => void }) {
  // Opens and clicks enter as people's only, as the reports and filters count them, unless machines are included
  //.
  const engagement = countsMachines(p.eventName);
  return (
    <Stack spacing={1}>
      <TextField
        autoFocus
        label="Event name"
        value={p.eventName ?? ''}
        onChange={(e) => set({ ...p, eventName: e.target.value })}
        helperText={
          engagement
            ? 'Contacts enter when a person opens (or clicks in) an email they got from you.'
            : 'Contacts enter when an event with this name is posted for them (e.g. signed_up).'
        }
        slotProps={{ htmlInput: { maxLength: 200 } }}
      />
      {engagement && (
        <FormControlLabel
          control={<Checkbox checked={!!p.includeMachine} onChange={(e) => set({ ...p, includeMachine: e.target.checked })} />}
          label="Include machine opens and bot clicks (mail privacy proxies, link scanners)"
        />
      )}
    </Stack>
  );
}

function DelaySettings({ p, set }: { p: NodeProperties; set: (p: NodeProperties) => void }) {
  const initial = splitDuration(Number.isFinite(p.delayMS) ? (p.delayMS as number) : DURATION_UNITS.seconds);
  const [amount, setAmount] = useState(String(initial.amount));
  const [unit, setUnit] = useState<DurationUnit>(initial.unit);
  const update = (a: string, u: DurationUnit) => {
    setAmount(a);
    setUnit(u);
    const n = Number(a);
    set({ ...p, delayMS: a.trim() && Number.isInteger(n) && n >= 1 ? n * DURATION_UNITS[u] : Number.NaN });
  };
  return (
    <Stack direction="row" spacing={1}>
      <TextField
        autoFocus
        type="number"
        label="Wait"
        value={amount}
        onChange={(e) => update(e.target.value, unit)}
        sx={{ width: 140 }}
        slotProps={{ htmlInput: { min: 1, step: 1 } }}
      />
      <TextField select label="Unit" value={unit} onChange={(e) => update(amount, e.target.value as DurationUnit)} slotProps={{ select: { native: true } }}>
        {Object.keys(DURATION_UNITS).map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </TextField>
    </Stack>
  );
}

function DelayUntilSettings({ p, set }: { p: NodeProperties; set: (p: NodeProperties) => void }) {
  const zones = useMemo(() => timezoneOptions(), []);
  const t = p.timeHelper ?? {};
  const mode = delayUntilMode(p.delayUntilAnyDate, p.delayUntilExclusive);
  const times = TIME_OPTIONS.some((o) => o.value === t.time) || !t.time ? TIME_OPTIONS : [{ value: t.time, label: t.time }, ...TIME_OPTIONS];
  const setTime = (patch: Partial<NonNullable<NodeProperties['timeHelper']>>) => set({ ...p, timeHelper: { ...t, ...patch } });
  return (
    <Stack spacing={2}>
      <TextField
        select
        label="Mode"
        value={mode}
        slotProps={{ select: { native: true } }}
        onChange={(e) => {
          const m = DELAY_UNTIL_MODES.find((x) => x.value === e.target.value)!;
          set({ ...p, delayUntilAnyDate: m.anyDate, delayUntilExclusive: m.exclusive });
        }}
      >
        {DELAY_UNTIL_MODES.map((m) => (
          <option key={m.value} value={m.value}>
            {m.label}
          </option>
        ))}
      </TextField>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
        {mode !== 'time_of_day' && (
          <TextField
            type="date"
            label="Date"
            value={t.date ?? ''}
            onChange={(e) => setTime({ date: e.target.value })}
            slotProps={{ inputLabel: { shrink: true } }}
          />
        )}
        <TextField select label="Time" value={t.time ?? ''} onChange={(e) => setTime({ time: e.target.value })} slotProps={{ select: { native: true } }}>
          {times.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </TextField>
      </Stack>
      <Autocomplete
        options={zones}
        value={t.timezone ?? null}
        onChange={(_, v) => setTime({ timezone: v ?? undefined })}
        renderInput={(params) => <TextField {...params} label="Time zone" />}
      />
      <Typography variant="body2" color="text.secondary">
        {mode === 'exclude_tardy' && 'Contacts wait until the date and time; a contact who arrives after it leaves the workflow.'}
        {mode === 'allow_tardy' && 'Contacts wait until the date and time; a contact who arrives after it goes on at once.'}
        {mode === 'time_of_day' && 'Contacts wait for the next time this time of day comes round (today if it is still ahead, else tomorrow).'}
        {t.timezone === CONTACT_ZONE && ' The time is read in each contact’s own time zone (UTC when it has none).'}
      </Typography>
    </Stack>
  );
}

function FilterSettings({ p, set }: { p: NodeProperties; set: (p: NodeProperties) => void }) {
  const [rows, setRows] = useState<BuilderRow[]>(() => rowsOf(p.filters));
  const change = (next: BuilderRow[]) => {
    setRows(next);
    set({ ...p, filters: toUserFilters(next) });
  };
  return (
    <Stack spacing={2}>
      <Typography variant="body2">Contacts who match go out of the ‘match’ output; the others out of ‘no match’.</Typography>
      <JoinSelect value={p.filterConjunction ?? 'and'} onChange={(v) => set({ ...p, filterConjunction: v })} />
      <FilterBuilder rows={rows} onChange={change} attributes={SEGMENT_FILTER_ATTRIBUTES} />
    </Stack>
  );
}

function MetadataSettings({ p, set }: { p: NodeProperties; set: (p: NodeProperties) => void }) {
  const [pairs, setPairs] = useState<Array<{ key: string; value: string }>>(() => {
    const list = Object.entries(p.jsonToUpdate ?? {}).map(([key, value]) => ({ key, value: showValue(value) }));
    return list.length ? list : [{ key: '', value: '' }];
  });
  const update = (next: Array<{ key: string; value: string }>) => {
    setPairs(next);
    const json: Record<string, unknown> = {};
    for (const pair of next) if (pair.key.trim()) json[pair.key.trim()] = parseMetadataValue(pair.value);
    set({ ...p, jsonToUpdate: json });
  };
  return (
    <Stack spacing={1}>
      <Typography variant="body2">
        Sets these keys of the contact’s metadata (at most {MAX_USER_JSON_PAIRS}). Values are read as JSON when they are (1, true, {'{"a":1}'}); null and
        undefined clear a key.
      </Typography>
      {pairs.map((pair, i) => (
        <Stack key={i} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <TextField
            size="small"
            label={`Key ${i + 1}`}
            value={pair.key}
            onChange={(e) => update(pairs.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)))}
          />
          <TextField
            size="small"
            label={`Value ${i + 1}`}
            value={pair.value}
            sx={{ flexGrow: 1 }}
            onChange={(e) => update(pairs.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
          />
          <IconButton aria-label={`Remove pair ${i + 1}`} onClick={() => update(pairs.filter((_, j) => j !== i))}>
            <DeleteIcon fontSize="small" />
          </IconButton>
        </Stack>
      ))}
      <Box>
        <Button size="small" disabled={pairs.length >= MAX_USER_JSON_PAIRS} onClick={() => setPairs([...pairs, { key: '', value: '' }])}>
          Add key/value pair
        </Button>
      </Box>
    </Stack>
  );
}

function SegmentSettings({ p, set }: { p: NodeProperties; set: (p: NodeProperties) => void }) {
  const segments = usePickSource('segments');
  return (
    <Stack spacing={2}>
      <PickList
        id="node-segment"
        label="Segment"
        source={segments}
        value={p.segmentId ? [p.segmentId] : []}
        onChange={(ids) => set({ ...p, segmentId: ids[0] })}
      />
      <TextField
        select
        label="Operation"
        value={p.segmentOperation ?? 'ADD'}
        slotProps={{ select: { native: true } }}
        onChange={(e) => set({ ...p, segmentOperation: e.target.value as 'ADD' | 'REMOVE' })}
      >
        <option value="ADD">ADD (put the contact in the segment)</option>
        <option value="REMOVE">REMOVE (take the contact out of it)</option>
      </TextField>
    </Stack>
  );
}

function WorkflowSettings({ p, set, workflowId }: { p: NodeProperties; set: (p: NodeProperties) => void; workflowId: string }) {
  const all = usePickSource('workflows');
  const others = useMemo<PickSource>(
    () => ({
      ...all,
      search: async (text) => (await all.search(text)).filter((o) => o.id.toLowerCase() !== workflowId.toLowerCase()),
    }),
    [all, workflowId],
  );
  return (
    <PickList
      id="node-workflow"
      label="Workflow"
      source={others}
      value={p.workflowId ? [p.workflowId] : []}
      onChange={(ids) => set({ ...p, workflowId: ids[0] })}
      helperText="The contact leaves this workflow and enters that one at its trigger."
    />
  );
}

function SendSettings({ p, set }: { p: NodeProperties; set: (p: NodeProperties) => void }) {
  const templates = usePickSource('templates');
  const personas = usePickSource('sender-personas');
  return (
    <Stack spacing={2}>
      <PickList
        id="node-template"
        label="Template"
        source={templates}
        value={p.templateId ? [p.templateId] : []}
        onChange={(ids) => set({ ...p, templateId: ids[0] })}
      />
      <PickList
        id="node-sender-persona"
        label="Sender persona"
        source={personas}
        value={p.senderPersonaId ? [p.senderPersonaId] : []}
        onChange={(ids) => set({ ...p, senderPersonaId: ids[0] })}
        helperText="The email goes from this address (it must be verified)."
      />
    </Stack>
  );
}

function TypeSettings({ node, p, set, workflowId }: { node: DisplayNode; p: NodeProperties; set: (p: NodeProperties) => void; workflowId: string }) {
  switch (node.type) {
    case 'event':
      return <EventSettings p={p} set={set} />;
    case 'delay':
      return <DelaySettings p={p} set={set} />;
    case 'delay_until':
      return <DelayUntilSettings p={p} set={set} />;
    case 'splitter':
      return <FilterSettings p={p} set={set} />;
    case 'update_user':
      return <MetadataSettings p={p} set={set} />;
    case 'segmenter':
      return <SegmentSettings p={p} set={set} />;
    case 'send_to_workflow':
      return <WorkflowSettings p={p} set={set} workflowId={workflowId} />;
    case 'sender':
      return <SendSettings p={p} set={set} />;
    case 'unsubscriber':
      return <Typography>No settings: a contact who reaches this node is unsubscribed.</Typography>;
    default:
      return <Typography>No settings.</Typography>;
  }
}

/** NodeSettingsDialog edits one node's settings and next nodes; OK applies them, Delete removes the node. */
export function NodeSettingsDialog({ node, display, titles, names, workflowId, onOk, onDelete, onClose }: NodeSettingsDialogProps) {
  const [draft, setDraft] = useState<NodeProperties>(node.properties);
  const ports = outputPorts(node.type);
  const [next, setNext] = useState<Record<string, string>>(() =>
    Object.fromEntries(ports.map((port) => [port, linksFrom(display, { nodeId: node.id, portId: port })[0]?.to.nodeId ?? ''])),
  );
  const errors = nodeErrors({ type: node.type, properties: draft });
  const title = titles.get(node.id) ?? nodeLabel(node.type);
  const titleId = `node-settings-${node.id}`;

  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth={node.type === 'splitter' ? 'lg' : 'sm'}>
      <DialogTitle id={titleId}>{title} settings</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TypeSettings node={node} p={draft} set={setDraft} workflowId={workflowId} />
          {ports.map((port) => {
            const choices = nextNodeChoices(display, { nodeId: node.id, portId: port });
            const label = ports.length > 1 ? `Next node on ${portLabel(port)}` : 'Next node';
            return (
              <TextField
                key={port}
                select
                label={label}
                value={next[port] ?? ''}
                slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
                onChange={(e) => setNext({ ...next, [port]: e.target.value })}
                helperText={ports.length > 1 ? `Where contacts on the ‘${portLabel(port)}’ output go next.` : 'Where contacts go next.'}
              >
                <option value="">(none: the contact’s path ends here)</option>
                {choices.map((n) => (
                  <option key={n.id} value={n.id}>{`${titles.get(n.id) ?? nodeLabel(n.type)}: ${nodeSummary(n, names)}`}</option>
                ))}
              </TextField>
            );
          })}
          {errors.length > 0 && (
            <Alert severity="warning" aria-label="Settings to complete">
              <Typography variant="body2">Complete these settings to enable OK:</Typography>
              <Box component="ul" sx={{ m: 0, pl: 2 }}>
                {errors.map((e) => (
                  <li key={e}>{e}</li>
                ))}
              </Box>
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button color="error" startIcon={<DeleteIcon />} onClick={onDelete} sx={{ mr: 'auto' }}>
          Delete
        </Button>
        <Button onClick={onClose}>Cancel</Button>
        <Button
          variant="contained"
          disabled={errors.length > 0}
          onClick={() => onOk({ properties: draft, next: Object.fromEntries(ports.map((port) => [port, next[port] || null])) })}
        >
          OK
        </Button>
      </DialogActions>
    </Dialog>
  );
}
