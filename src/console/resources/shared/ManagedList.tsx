/**
 * ManagedList is the one generated list-and-dialog screen of the console's REST-shaped gateways (topics, subscribe
 * forms, webhooks, domains, team): everything it shows comes from the list operation's `x-screen` in the spec
 * (generated/screens.gen.ts) — the title and intro, the add form (SpecForm), the table's columns or a card per row, the
 * edit dialog and the delete confirmation with their words. A page adds only what the spec cannot say: a custom cell,
 * a card's body, a pick-list widget, or a request whose body is not the form's values.
 *
 * States: a spinner while loading, the load error with Retry, the empty text; a refused save keeps the typed values
 * and names the field under it; a refused delete says why in a toast and keeps the row.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNotify } from 'react-admin';
import type { HttpError } from 'react-admin';
import type { RegistryFieldsType, RegistryWidgetsType } from '@rjsf/utils';
import {
  Alert,
  Box,
  Button,
  Card,
  CardActions,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { ScreenDefinition, ScreenForm } from '../../../../generated/screens.gen';
import { callOperationUnchecked, type RetryPolicy, type UncheckedCallParams } from '../../data/gateway';
import { LoadStatus } from '../../account/LoadStatus';
import { SpecForm, splitRefusal, type SaveRefusal } from './SpecForm';
import { formatDate } from '../../dates';

/** One row of a managed list, as its list operation returns it. */
export type Row = Record<string, unknown> & { id: string };
type FormData = Record<string, unknown>;

/** fillTemplate replaces each {field} of `template` with the row's value of that field. */
export function fillTemplate(template: string, row: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => String(row[key] ?? ''));
}

/** The requests a page shapes itself, where the operation's parameters are not the form's values and the row's id. */
export interface ManagedRequests {
  list?: () => UncheckedCallParams;
  create?: (data: FormData) => UncheckedCallParams;
  update?: (row: Row, data: FormData) => UncheckedCallParams;
  delete?: (row: Row) => UncheckedCallParams;
}

export interface ManagedListProps {
  definition: ScreenDefinition;
  requests?: ManagedRequests;
  /** The list read's retries (default the gateway's). */
  listRetry?: RetryPolicy;
  /** Cells the spec's column types cannot draw, by column source. */
  cells?: Record<string, (row: Row) => React.ReactNode>;
  /** Whether a row may be deleted (default: every row). */
  canDelete?: (row: Row) => boolean;
  /** A card's body, for layout: cards. */
  renderCard?: (row: Row, reload: () => Promise<void>) => React.ReactNode;
  /** Called with the created row (e.g. to show a secret returned once). */
  onCreated?: (row: Row) => void;
  /** Called with each list answer as a whole, for what it carries beside its rows (e.g. the SMTP host and ports). */
  onLoaded?: (answer: Record<string, unknown>) => void;
  /** Rewords a refusal's text before it is shown. */
  errorText?: (text: string) => string;
  widgets?: RegistryWidgetsType;
  fields?: RegistryFieldsType;
  /** The domain's own checks of a form's values beyond the schema (shared with the server), by field: a message or undefined. */
  check?: (data: FormData) => Record<string, string | undefined>;
  /** uiSchema entries added to both forms' (by field), for what the page knows and the spec does not, e.g. option labels. */
  uiOverrides?: Record<string, Record<string, unknown>>;
  /** Leave out the title and intro (the list is part of another page). */
  embedded?: boolean;
  /** Shown between the intro and the add form. */
  children?: React.ReactNode;
}

/** refusalOf turns a thrown gateway error into field errors and free text (the body's errors list when there is one). */
function refusalOf(form: ScreenForm, error: unknown): SaveRefusal {
  const body = (error as HttpError | undefined)?.body as { errors?: unknown } | undefined;
  const list = Array.isArray(body?.errors) ? body.errors.map(String) : [(error as Error)?.message ?? String(error)];
  return splitRefusal(form, list);
}

/** withUi merges a page's uiSchema entries into a form's, field by field. */
function withUi(form: ScreenForm | undefined, overrides: ManagedListProps['uiOverrides']): ScreenForm | undefined {
  if (!form || !overrides) return form;
  const ui = { ...form.uiSchema } as Record<string, Record<string, unknown>>;
  for (const [key, entries] of Object.entries(overrides)) ui[key] = { ...ui[key], ...entries };
  return { ...form, uiSchema: ui };
}

function cellText(row: Row, column: NonNullable<ScreenDefinition['columns']>[number]): React.ReactNode {
  const value = row[column.source];
  if (column.type === 'count') return Number(value ?? 0).toLocaleString('en-US');
  if (column.type === 'date') return formatDate(value);
  return value === null || value === undefined ? '' : String(value);
}

/** ManagedList renders a managed screen from its definition; see the module comment. */
export function ManagedList({
  definition,
  requests = {},
  listRetry,
  cells = {},
  canDelete = () => true,
  renderCard,
  onCreated,
  onLoaded,
  errorText = (t) => t,
  widgets,
  fields,
  uiOverrides,
  check,
  embedded,
  children,
}: ManagedListProps) {
  const notify = useNotify();
  const [rows, setRows] = useState<Row[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [editing, setEditing] = useState<Row | null>(null);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const [busy, setBusy] = useState(false);
  const { operations } = definition;
  const create = withUi(definition.create, uiOverrides);
  const edit = withUi(definition.edit, uiOverrides);
  const listParams = requests.list;
  // Read through a ref, so a page passing a new function each render does not reload the list.
  const onLoadedRef = useRef(onLoaded);
  useEffect(() => {
    onLoadedRef.current = onLoaded;
  });

  const load = useCallback(async () => {
    setLoadError('');
    try {
      const res = (await callOperationUnchecked(operations.list, listParams?.() ?? {}, listRetry)) as { data: Row[] };
      setRows(res.data);
      onLoadedRef.current?.(res);
    } catch (e) {
      setLoadError(`${definition.loadError}: ${(e as Error).message}`);
    }
  }, [operations.list, listParams, listRetry, definition.loadError]);
  useEffect(() => {
    void load();
  }, [load]);

  /** save runs a create or update and words its outcome (a refusal naming no field is a toast); `created` hears of a new row. */
  const save = async (form: ScreenForm, call: () => Promise<unknown>, created?: (row: Row) => void): Promise<SaveRefusal | void> => {
    try {
      const saved = ((await call()) as { data?: Row } | undefined)?.data;
      notify(fillTemplate(form.success, saved ?? {}), { type: 'success' });
      // Before the list reloads: a card drawn for the new row may need what only this answer carries (a secret).
      if (saved) created?.(saved);
      await load();
    } catch (e) {
      if (form.refusals === 'toast') {
        notify(`${form.failure}: ${errorText((e as Error).message)}`, { type: 'error' });
        return { fields: {}, other: (e as Error).message };
      }
      const refusal = refusalOf(form, e);
      if (refusal.other || !Object.keys(refusal.fields).length)
        notify(`${form.failure}: ${errorText(refusal.other || (e as Error).message)}`, { type: 'error' });
      return { ...refusal, fields: Object.fromEntries(Object.entries(refusal.fields).map(([k, v]) => [k, errorText(v)])) };
    }
  };

  const remove = async (row: Row) => {
    const words = definition.delete!;
    setBusy(true);
    try {
      await callOperationUnchecked(operations.delete!, requests.delete?.(row) ?? { path: { id: row.id } });
      notify(fillTemplate(words.success, row), { type: 'success' });
      await load();
    } catch (e) {
      notify(`${words.failure}: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
      setDeleting(null);
    }
  };

  const label = (row: Row) => String(row[definition.rowLabel] ?? '');
  const testId = (row: Row) => (definition.rowTestId ? fillTemplate(definition.rowTestId, row) : undefined);

  const addForm = create && operations.create && (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          {create.title}
        </Typography>
        <SpecForm
          form={create}
          service={definition.service}
          idPrefix={`${definition.name}-create`}
          initial={create.initial ?? {}}
          widgets={widgets}
          fields={fields}
          check={check}
          onSave={(data) => save(create, () => callOperationUnchecked(operations.create!, requests.create?.(data) ?? { body: data }), onCreated)}
          actions={(saving) => (
            <Box sx={{ mt: 2 }}>
              <Button type="submit" variant="contained" disabled={saving}>
                {saving ? (create.submittingLabel ?? create.submitLabel) : create.submitLabel}
              </Button>
            </Box>
          )}
        />
      </CardContent>
    </Card>
  );

  const rowActions = (row: Row) => (
    <>
      {edit && operations.update && (
        <Button size="small" onClick={() => setEditing(row)} aria-label={`Edit ${label(row)}`}>
          Edit
        </Button>
      )}
      {definition.delete && canDelete(row) && (
        <Button size="small" color="error" onClick={() => setDeleting(row)} aria-label={`${definition.delete.label} ${label(row)}`}>
          {definition.delete.label}
        </Button>
      )}
    </>
  );

  const list = !rows?.length ? null : definition.layout === 'cards' ? (
    rows.map((row) => (
      <Card key={row.id} data-testid={testId(row)}>
        <CardContent>{renderCard?.(row, load)}</CardContent>
        {(edit || definition.delete) && <CardActions>{rowActions(row)}</CardActions>}
      </Card>
    ))
  ) : (
    <Card>
      <Box sx={{ overflowX: 'auto' }}>
        <Table aria-label={definition.tableLabel ?? definition.title}>
          <TableHead>
            <TableRow>
              {definition.columns?.map((c) => (
                <TableCell key={c.source} align={c.type === 'count' ? 'right' : undefined}>
                  {c.label}
                </TableCell>
              ))}
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((row) => (
              <TableRow key={row.id} data-testid={testId(row)}>
                {definition.columns?.map((c) => (
                  <TableCell key={c.source} align={c.type === 'count' ? 'right' : undefined}>
                    {cells[c.source] ? cells[c.source](row) : cellText(row, c)}
                  </TableCell>
                ))}
                <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                  {rowActions(row)}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Box>
    </Card>
  );

  const below = create?.position === 'below';
  return (
    <Stack spacing={2}>
      {!embedded && (
        <Typography variant="h5" component="h1">
          {definition.title}
        </Typography>
      )}
      {!embedded && definition.intro && <Alert severity="info">{definition.intro}</Alert>}
      {children}
      {!below && addForm}
      <LoadStatus rows={rows} error={loadError} onRetry={() => void load()} loadingLabel={definition.loadingLabel} emptyText={definition.empty} />
      {list}
      {below && addForm}
      {editing && edit && (
        <Dialog open onClose={() => setEditing(null)} fullWidth maxWidth="sm" aria-labelledby={`${definition.name}-edit-title`}>
          <DialogTitle id={`${definition.name}-edit-title`}>{edit.title}</DialogTitle>
          <DialogContent>
            <SpecForm
              form={edit}
              service={definition.service}
              idPrefix={`${definition.name}-edit`}
              initial={Object.fromEntries(Object.keys((edit.jsonSchema.properties ?? {}) as object).map((k) => [k, editing[k] ?? undefined]))}
              widgets={widgets}
              fields={fields}
              check={check}
              onSave={async (data) => {
                const refusal = await save(edit, () =>
                  callOperationUnchecked(operations.update!, requests.update?.(editing, data) ?? { path: { id: editing.id }, body: data }),
                );
                if (!refusal) setEditing(null);
                return refusal;
              }}
              actions={(saving) => (
                <DialogActions sx={{ px: 0 }}>
                  <Button onClick={() => setEditing(null)}>Cancel</Button>
                  <Button type="submit" variant="contained" disabled={saving}>
                    {edit.submitLabel}
                  </Button>
                </DialogActions>
              )}
            />
          </DialogContent>
        </Dialog>
      )}
      {definition.delete && (
        <Dialog open={!!deleting} onClose={() => setDeleting(null)} aria-labelledby={`${definition.name}-delete-title`}>
          <DialogTitle id={`${definition.name}-delete-title`}>{deleting ? fillTemplate(definition.delete.title, deleting) : ''}</DialogTitle>
          {definition.delete.body && (
            <DialogContent>
              <Typography>{deleting ? fillTemplate(definition.delete.body, deleting) : ''}</Typography>
            </DialogContent>
          )}
          <DialogActions>
            <Button onClick={() => setDeleting(null)}>Cancel</Button>
            <Button color="error" variant="contained" disabled={busy} onClick={() => deleting && void remove(deleting)}>
              {definition.delete.confirmLabel}
            </Button>
          </DialogActions>
        </Dialog>
      )}
    </Stack>
  );
}
