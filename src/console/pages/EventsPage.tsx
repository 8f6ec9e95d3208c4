/**
 * The Events screen at /account/events (spec part 1 §2 Events screen, §3 Event, §4 pager and sort, §5 event search,
 * §8 'Couldn’t fetch ...' toast, §9 page size 10, default sort emitted_at DESC, search debounced 1000 ms).
 *
 * An @mui/x-data-grid in server-side pagination and sort mode over GET {event}/all_events and /all_events/count:
 * Occurred, id, user_id, email and Event Name (cut at 45 characters, the full name in a tooltip); clicking a header
 * sorts by it and clicking it again toggles ASC/DESC (never unsorted). The grid's own pager cannot wrap, so the
 * screen has its own: "previous" on the first page goes to the last page (spec §4), "next" stops at the last one.
 * Each row has a Details button (the details dialog) and, for events with a stored copy, a View email button that
 * opens /email/{location} in a new tab.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import { Alert, Box, Card, CardContent, FormControlLabel, IconButton, Stack, Switch, TextField, Typography } from '@mui/material';
import { DataGrid, GridActionsCellItem, type GridColDef, type GridRenderCellParams, type GridSortModel } from '@mui/x-data-grid';
import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import ZoomInIcon from '@mui/icons-material/ZoomIn';
import type { OperationQuery } from '../data/apiTypes';
import type { AppDataProvider } from '../data/dataProvider';
import { SEARCH_DEBOUNCE_MS } from '../resources/shared/SearchBox';
import {
  DEFAULT_EVENT_SORT,
  EVENT_NAME_MAX,
  EVENTS_PAGE_SIZE,
  emailLocation,
  formatInUtc,
  formatWhen,
  truncateText,
  type EventRecord,
} from '../account/eventDetails';
import { EventDetailsDialog } from './EventDetailsDialog';

type ListQuery = OperationQuery<'listEvents'>;
type CountQuery = OperationQuery<'countEvents'>;

const DEFAULT_SORT_MODEL: GridSortModel = [{ field: DEFAULT_EVENT_SORT.field, sort: 'desc' }];

interface LoadState {
  loading: boolean;
  rows: EventRecord[];
  total: number;
  error?: string;
}

/** lastPageOf is the zero-based index of the last page for `total` rows (0 when there are none). */
export function lastPageOf(total: number, pageSize = EVENTS_PAGE_SIZE): number {
  return Math.max(0, Math.ceil(total / pageSize) - 1);
}

/**
 * previousPage is spec part 1 §4's event-list pager: the page before, or from the first page the last page.
 * nextPage never passes the last page.
 */
export function previousPage(page: number, total: number): number {
  return page <= 0 ? lastPageOf(total) : page - 1;
}
export function nextPage(page: number, total: number): number {
  return Math.min(page + 1, lastPageOf(total));
}

/** EventsPager shows "1–10 of 23" with previous (wrapping to the last page) and next buttons. */
function EventsPager({ page, total, onPage }: { page: number; total: number; onPage: (page: number) => void }) {
  const last = lastPageOf(total);
  const from = total === 0 ? 0 : page * EVENTS_PAGE_SIZE + 1;
  const to = Math.min(total, (page + 1) * EVENTS_PAGE_SIZE);
  return (
    <Stack component="nav" aria-label="Events pages" direction="row" spacing={1} sx={{ alignItems: 'center', justifyContent: 'flex-end', px: 2, py: 1 }}>
      <Typography variant="body2" aria-live="polite" data-testid="events-range">
        {from}–{to} of {total}
      </Typography>
      <IconButton aria-label="Previous page" disabled={last === 0} onClick={() => onPage(previousPage(page, total))}>
        <ChevronLeftIcon />
      </IconButton>
      <Typography variant="body2">
        Page {page + 1} of {last + 1}
      </Typography>
      <IconButton aria-label="Next page" disabled={page >= last} onClick={() => onPage(nextPage(page, total))}>
        <ChevronRightIcon />
      </IconButton>
    </Stack>
  );
}

/** withTitle renders a cell's text with the whole value as its tooltip (UUIDs and long addresses are cut to fit). */
function withTitle({ value }: GridRenderCellParams<EventRecord>) {
  const text = value === null || value === undefined ? '' : String(value);
  return <span title={text || undefined}>{text}</span>;
}

/** openEmail opens the stored copy of an event's email in a new tab (spec part 1 §2 /email/{location}). */
function openEmail(location: string): void {
  window.open(`/email/${location}`, '_blank', 'noopener,noreferrer');
}

/** EventsPage is the /account/events screen. */
export function EventsPage() {
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const [page, setPage] = useState(0);
  const [sortModel, setSortModel] = useState<GridSortModel>(DEFAULT_SORT_MODEL);
  const [searchText, setSearchText] = useState('');
  const [search, setSearch] = useState('');
  // System events (sends, opens, clicks…) are shown by default: a new account has nothing but system events, so with
  // the toggle off its Events screen would be empty. The spec leaves the default open; ON is the more useful one.
  const [includeSystem, setIncludeSystem] = useState(true);
  const [state, setState] = useState<LoadState>({ loading: true, rows: [], total: 0 });
  const [details, setDetails] = useState<EventRecord | null>(null);

  // Spec part 1 §5: the search fires only with non-empty text, 1000 ms after the last keystroke; clearing the box
  // goes back to the unfiltered list at once.
  useEffect(() => {
    const text = searchText.trim();
    if (!text) {
      if (search) {
        setSearch('');
        setPage(0);
      }
      return;
    }
    if (text === search) return;
    const timer = setTimeout(() => {
      setSearch(text);
      setPage(0);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [searchText, search]);

  const sort = sortModel[0] ?? DEFAULT_SORT_MODEL[0];
  const sortColumns = `${sort.field} ${sort.sort === 'asc' ? 'ASC' : 'DESC'}`;

  useEffect(() => {
    let live = true;
    const filters: CountQuery = {
      include_system_events: includeSystem,
      ...(search ? { search_field: 'combined' as const, search_value: search } : {}),
    };
    const listQuery: ListQuery = { ...filters, limit: EVENTS_PAGE_SIZE, offset: page * EVENTS_PAGE_SIZE, sort_columns: sortColumns };
    setState((s) => ({ ...s, loading: true }));
    Promise.all([dataProvider.callGateway('listEvents', { query: listQuery }), dataProvider.callGateway('countEvents', { query: filters })])
      .then(([list, count]) => {
        if (!live) return;
        const total = count.num_events ?? 0;
        setState({ loading: false, rows: list.data ?? [], total });
        // The list shrank under the current page (e.g. events expired): show its new last page.
        if (page > lastPageOf(total)) setPage(lastPageOf(total));
      })
      .catch((error: Error) => {
        if (!live) return;
        notify(`Couldn’t fetch events: ${error.message}`, { type: 'error' });
        setState({ loading: false, rows: [], total: 0, error: error.message });
      });
    return () => {
      live = false;
    };
  }, [dataProvider, notify, includeSystem, search, page, sortColumns]);

  // Spec part 1 §4: repeated clicks on the same column toggle ASC and DESC. The grid's sortingOrder has no null
  // entry, so it never offers "unsorted"; an empty model is still mapped back to the other direction defensively.
  const onSortModelChange = useCallback((model: GridSortModel) => {
    setSortModel((previous) => {
      if (model.length) return [model[0]];
      const prev = previous[0] ?? DEFAULT_SORT_MODEL[0];
      return [{ field: prev.field, sort: prev.sort === 'asc' ? 'desc' : 'asc' }];
    });
    setPage(0);
  }, []);

  const columns = useMemo<GridColDef<EventRecord>[]>(
    () => [
      {
        field: 'emitted_at',
        headerName: 'Occurred',
        width: 200,
        sortingOrder: ['desc', 'asc'],
        renderCell: ({ row }) => <span title={formatInUtc(row.emitted_at)}>{formatWhen(row.emitted_at)}</span>,
      },
      { field: 'id', headerName: 'id', minWidth: 150, flex: 1, renderCell: withTitle },
      { field: 'user_id', headerName: 'user_id', minWidth: 150, flex: 1, renderCell: withTitle },
      { field: 'email', headerName: 'email', minWidth: 180, flex: 1.2, renderCell: withTitle },
      {
        field: 'name',
        headerName: 'Event Name',
        minWidth: 180,
        flex: 1.2,
        renderCell: ({ row }) => <span title={row.name.length > EVENT_NAME_MAX ? row.name : undefined}>{truncateText(row.name, EVENT_NAME_MAX)}</span>,
      },
      {
        field: 'actions',
        type: 'actions',
        headerName: 'Actions',
        width: 100,
        getActions: ({ row }) => {
          const location = emailLocation(row);
          const actions = [<GridActionsCellItem key="details" icon={<ZoomInIcon />} label="Details" onClick={() => setDetails(row)} />];
          if (location) {
            actions.push(<GridActionsCellItem key="email" icon={<OpenInNewIcon />} label="View email" onClick={() => openEmail(location)} />);
          }
          return actions;
        },
      },
    ],
    [],
  );

  return (
    <Box>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        Events
      </Typography>
      <Card variant="outlined">
        <CardContent>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
            <TextField
              id="events-search"
              label="Search events"
              helperText="Email or event name, an id or user id, or a date such as 2026-11-20"
              size="small"
              type="search"
              value={searchText}
              onChange={(e) => setSearchText(e.target.value)}
              sx={{ minWidth: 320 }}
            />
            <FormControlLabel
              control={
                <Switch
                  checked={includeSystem}
                  onChange={(e) => {
                    setIncludeSystem(e.target.checked);
                    setPage(0);
                  }}
                />
              }
              label="Include system events"
            />
          </Stack>
        </CardContent>
        {state.error && (
          <Alert severity="error" sx={{ mx: 2, mb: 2 }}>
            Couldn’t fetch events: {state.error}
          </Alert>
        )}
        <DataGrid
          label="Events"
          rows={state.rows}
          columns={columns}
          getRowId={(row) => row.id}
          loading={state.loading}
          rowCount={state.total}
          paginationMode="server"
          sortingMode="server"
          filterMode="server"
          paginationModel={{ page, pageSize: EVENTS_PAGE_SIZE }}
          pageSizeOptions={[EVENTS_PAGE_SIZE]}
          sortModel={sortModel}
          onSortModelChange={onSortModelChange}
          sortingOrder={['asc', 'desc']}
          disableColumnMenu
          disableColumnFilter
          disableRowSelectionOnClick
          hideFooter
          autoHeight
          localeText={{ noRowsLabel: state.error ? 'No events to show' : 'Nothing here, yet' }}
          slotProps={{ loadingOverlay: { variant: 'circular-progress', noRowsVariant: 'circular-progress' } }}
          sx={{ border: 0, borderTop: 1, borderColor: 'divider', borderRadius: 0 }}
        />
        <EventsPager page={page} total={state.total} onPage={setPage} />
      </Card>
      <EventDetailsDialog event={details} onClose={() => setDetails(null)} />
    </Box>
  );
}
