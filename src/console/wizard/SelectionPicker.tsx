/**
 * The wizard's segment and contact pickers (spec part 2 §2 Pick lists, §5 Search, §9): 5 per page with a search and
 * a pager, a tick box per row, and the chosen ones listed with a remove button. Segments are searched by name; the
 * contact search reads text as the contact list does (search_field=all: a UUID looks up by id, a date-like text
 * filters by date, anything else matches email or name), 1000 ms after the last keystroke.
 */
import { useEffect, useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import { Box, Button, Checkbox, Chip, Stack, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import type { AppDataProvider } from '../data/dataProvider';
import { SEARCH_DEBOUNCE_MS } from '../resources/shared/SearchBox';
import { WIZARD_PICKER_PAGE_SIZE } from './wizardModel';

/** How long after the last keystroke the segment search runs (ms); the contact search waits SEARCH_DEBOUNCE_MS (1000). */
const SEGMENT_SEARCH_DEBOUNCE_MS = 300;

interface Row {
  id: string;
  label: string;
  detail: string;
}

/** SelectionPicker picks several segments or contacts; `labels` and `onLabels` keep the chosen ones' names for the review. */
export function SelectionPicker({
  kind,
  value,
  onChange,
  labels,
  onLabels,
}: {
  kind: 'segments' | 'contacts';
  value: string[];
  onChange: (ids: string[]) => void;
  labels: Record<string, string>;
  onLabels: (labels: Record<string, string>) => void;
}) {
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<Row[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const noun = kind === 'segments' ? 'segments' : 'contacts';

  useEffect(() => {
    const timer = setTimeout(
      () => {
        setSearch(text.trim());
        setPage(1);
      },
      kind === 'contacts' ? SEARCH_DEBOUNCE_MS : SEGMENT_SEARCH_DEBOUNCE_MS,
    );
    return () => clearTimeout(timer);
  }, [text, kind]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    const offset = (page - 1) * WIZARD_PICKER_PAGE_SIZE;
    const load = async (): Promise<{ rows: Row[]; total: number }> => {
      if (kind === 'segments') {
        const filter = { names: search || undefined };
        const [list, count] = await Promise.all([
          dataProvider.callGateway('listSegments', { query: { ...filter, limit: WIZARD_PICKER_PAGE_SIZE, offset, sort_columns: 'name ASC' } }),
          dataProvider.callGateway('countSegments', { query: filter }),
        ]);
        return {
          rows: list.data.map((s) => ({ id: s.id, label: s.name, detail: `${s.num_users ?? 0} contacts` })),
          total: count.num_segments,
        };
      }
      const filter = search ? { search_field: 'all' as const, search_value: search } : {};
      const [list, count] = await Promise.all([
        dataProvider.callGateway('listUsers', { query: { ...filter, limit: WIZARD_PICKER_PAGE_SIZE, offset, sort_columns: 'email ASC' } }),
        dataProvider.callGateway('countUsers', { query: filter }),
      ]);
      return {
        rows: list.data.map((c) => ({ id: c.id, label: c.email, detail: [c.first_name, c.last_name].filter(Boolean).join(' ') })),
        total: count.num_users,
      };
    };
    load()
      .then((answer) => {
        if (!live) return;
        setRows(answer.rows);
        setTotal(answer.total);
      })
      .catch((error: Error) => live && notify(`Couldn't fetch ${noun}: ${error.message}`, { type: 'error' }))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [dataProvider, notify, kind, noun, search, page]);

  const pages = Math.max(1, Math.ceil(total / WIZARD_PICKER_PAGE_SIZE));
  const toggle = (row: Row) => {
    onLabels({ [row.id]: row.label });
    onChange(value.includes(row.id) ? value.filter((v) => v !== row.id) : [...value, row.id]);
  };
  const title = kind === 'segments' ? 'Segments' : 'Contacts';

  return (
    <Stack spacing={1.5}>
      <TextField
        id={`wizard-${kind}-search`}
        label={kind === 'segments' ? 'Search segments by name' : 'Search contacts by email, name, id or date'}
        type="search"
        size="small"
        value={text}
        onChange={(e) => setText(e.target.value)}
        sx={{ maxWidth: 420 }}
      />
      <Table size="small" aria-label={`${title} to choose from`} aria-busy={loading}>
        <TableHead>
          <TableRow>
            <TableCell padding="checkbox">Pick</TableCell>
            <TableCell>{kind === 'segments' ? 'Name' : 'Email'}</TableCell>
            <TableCell>{kind === 'segments' ? 'Contacts' : 'Name'}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <TableRow key={row.id} hover selected={value.includes(row.id)}>
              <TableCell padding="checkbox">
                <Checkbox checked={value.includes(row.id)} onChange={() => toggle(row)} slotProps={{ input: { 'aria-label': `Choose ${row.label}` } }} />
              </TableCell>
              <TableCell>{row.label}</TableCell>
              <TableCell>{row.detail}</TableCell>
            </TableRow>
          ))}
          {!loading && !rows.length && (
            <TableRow>
              <TableCell colSpan={3}>{search ? `No ${noun} match '${search}'` : `No ${noun} yet`}</TableCell>
            </TableRow>
          )}
        </TableBody>
      </Table>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Button size="small" onClick={() => setPage((p) => p - 1)} disabled={page <= 1 || loading}>
          Previous page
        </Button>
        <Typography variant="body2">{`Page ${page} of ${pages} (${total} ${noun})`}</Typography>
        <Button size="small" onClick={() => setPage((p) => p + 1)} disabled={page >= pages || loading}>
          Next page
        </Button>
      </Stack>
      <Box aria-label={`Chosen ${noun}`} role="group">
        <Typography variant="subtitle2" component="p">{`${value.length} chosen`}</Typography>
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1, mt: 0.5 }}>
          {value.map((id) => (
            <Chip key={id} label={labels[id] ?? id} onDelete={() => onChange(value.filter((v) => v !== id))} />
          ))}
        </Stack>
      </Box>
    </Stack>
  );
}
