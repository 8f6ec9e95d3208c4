/**
 * Messages (/messages; openapi/messages.yaml listMessages): every recipient's copy of every email the project sent or
 * tried to send — blasts, workflows, single sends, the sending API, SMTP — newest first, to answer "did my user get
 * the email?". Filters (recipient, subject, Message-ID, tag, stream, status, since and until) live in the address, so
 * a filtered list survives opening a message and coming back; "Load more" pages on with the answer's cursor. A table
 * on a wide screen, a card per message on a phone. Each message opens its page (/messages/:id).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Link,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
  useMediaQuery,
} from '@mui/material';
import { callOperation } from '../data/gateway';
import { formatDateTime } from '../dates';
import type { ListRow } from '../data/apiTypes';
import { DetailList } from '../resources/shared/DetailList';
import {
  FILTER_KEYS,
  SOURCE_LABELS,
  STATUS_CHIP,
  STATUS_FILTER_LABELS,
  filtersFromSearch,
  isoToLocal,
  localToIso,
  messageFlags,
  searchFromFilters,
  type Message,
  type MessageFilters,
} from './messageModel';

const PAGE_SIZE = 50;

type FormValues = Record<(typeof FILTER_KEYS)[number], string>;

/** formValues is what the filter form shows for the applied filters (dates in the browser's zone). */
function formValues(filters: MessageFilters): FormValues {
  const f = filters as Partial<Record<(typeof FILTER_KEYS)[number], string>>;
  return Object.fromEntries(FILTER_KEYS.map((k) => [k, k === 'since' || k === 'until' ? isoToLocal(f[k]) : (f[k] ?? '')])) as FormValues;
}

/** StatusChip is a message's delivery status in its colour. */
export function StatusChip({ status }: { status: Message['status'] }) {
  const chip = STATUS_CHIP[status];
  return <Chip size="small" color={chip.color} label={chip.label} />;
}

/** Flags are the set after-delivery flags of a message as small chips, or a dash. */
function Flags({ message }: { message: Message }) {
  const flags = messageFlags(message);
  if (!flags.length) return <span aria-label="No opens, clicks, bounces or complaints">—</span>;
  return (
    <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
      {flags.map((f) => (
        <Chip key={f.label} size="small" variant="outlined" color={f.color} label={f.label} />
      ))}
    </Stack>
  );
}

/** MessageLink opens a message's page, keeping the list's filters for the way back. */
function MessageLink({ message, search }: { message: Message; search: string }) {
  return (
    <Link component={RouterLink} to={`/messages/${message.id}`} state={{ back: `/messages${search}` }} sx={{ overflowWrap: 'anywhere' }}>
      {message.email}
    </Link>
  );
}

/** The filters a phone shows behind "More filters" unless one of them is applied. */
const MORE_FILTERS: ReadonlyArray<keyof FormValues> = ['subject', 'message_id', 'tag', 'stream', 'since', 'until'];

/**
 * FilterForm edits the filters; Search applies them (into the address), Clear removes them all. `compact` (a phone)
 * shows the recipient and status and folds the others.
 */
function FilterForm({
  applied,
  streams,
  onApply,
  compact,
}: {
  applied: MessageFilters;
  streams: Array<ListRow<'listStreams'>> | null;
  onApply: (values: FormValues) => void;
  compact: boolean;
}) {
  const [values, setValues] = useState<FormValues>(() => formValues(applied));
  const moreApplied = MORE_FILTERS.filter((k) => k in applied).length;
  const [unfolded, setUnfolded] = useState(false);
  const showMore = !compact || unfolded || moreApplied > 0;
  // The address changed under the form (back, forward, Clear): show what is applied.
  const appliedKey = JSON.stringify(applied);
  useEffect(() => {
    setValues(formValues(JSON.parse(appliedKey) as MessageFilters));
  }, [appliedKey]);
  const set = (key: keyof FormValues) => (e: React.ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [key]: e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply(values);
  };
  const streamNames = [...new Set([...(streams ?? []).map((s) => s.name), ...(values.stream ? [values.stream] : [])])];
  const field = (key: keyof FormValues, label: string, extra: Record<string, unknown> = {}) =>
    showMore || !MORE_FILTERS.includes(key) ? (
      <TextField id={`messages-filter-${key}`} label={label} size="small" value={values[key]} onChange={set(key)} fullWidth {...extra} />
    ) : null;
  return (
    <Box component="form" role="search" aria-label="Filter messages" onSubmit={submit} noValidate>
      <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 220px), 1fr))', gap: 2 }}>
        {field('recipient', 'Recipient', { type: 'search', placeholder: 'ann@example.com', helperText: 'The whole address' })}
        {field('subject', 'Subject', { type: 'search', helperText: 'Words in the subject' })}
        {field('message_id', 'Message-ID', { type: 'search' })}
        {field('tag', 'Tag', { type: 'search' })}
        {field('stream', 'Stream', {
          select: true,
          slotProps: { select: { native: true }, inputLabel: { shrink: true } },
          children: [
            <option key="" value="">
              Any stream
            </option>,
            ...streamNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            )),
          ],
        })}
        {field('status', 'Status', {
          select: true,
          slotProps: { select: { native: true }, inputLabel: { shrink: true } },
          children: [
            <option key="" value="">
              Any status
            </option>,
            ...Object.entries(STATUS_FILTER_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            )),
          ],
        })}
        {field('since', 'Queued from', { type: 'datetime-local', slotProps: { inputLabel: { shrink: true } }, helperText: 'Your time zone' })}
        {field('until', 'Queued before', { type: 'datetime-local', slotProps: { inputLabel: { shrink: true } }, helperText: 'Your time zone' })}
      </Box>
      <Stack direction="row" spacing={1} sx={{ mt: 2, flexWrap: 'wrap', rowGap: 1 }}>
        <Button type="submit" variant="contained">
          Search
        </Button>
        {!showMore && <Button onClick={() => setUnfolded(true)}>More filters</Button>}
        <Button
          onClick={() => {
            const blank = formValues({});
            setValues(blank);
            onApply(blank);
          }}
        >
          Clear
        </Button>
      </Stack>
    </Box>
  );
}

/** MessageCards is the list on a phone: one card per message, its recipient as the title and the rest named. */
function MessageCards({ rows, search }: { rows: Message[]; search: string }) {
  return (
    <Stack component="ul" spacing={1} aria-label="Messages" sx={{ listStyle: 'none', p: 0, m: 0 }}>
      {rows.map((m) => (
        <Card key={m.id} variant="outlined" component="li" data-testid={`message-${m.id}`}>
          <CardContent sx={{ pb: 1 }}>
            <Typography variant="subtitle1" component="p" sx={{ fontWeight: 600 }}>
              <MessageLink message={m} search={search} />
            </Typography>
            <DetailList
              items={[
                ['Subject', m.subject ?? '(no subject)'],
                ['Status', <StatusChip key="s" status={m.status} />],
                ['Stream', m.stream],
                ['Source', SOURCE_LABELS[m.source]],
                ['Queued', formatDateTime(m.created_at)],
                ['After', <Flags key="f" message={m} />],
              ]}
            />
          </CardContent>
        </Card>
      ))}
    </Stack>
  );
}

/** MessageTable is the list on a wide screen. */
function MessageTable({ rows, search }: { rows: Message[]; search: string }) {
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label="Messages">
        <TableHead>
          <TableRow>
            <TableCell>Recipient</TableCell>
            <TableCell>Subject</TableCell>
            <TableCell>Stream</TableCell>
            <TableCell>Status</TableCell>
            <TableCell>Source</TableCell>
            <TableCell>Queued</TableCell>
            <TableCell>After delivery</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((m) => (
            <TableRow key={m.id} data-testid={`message-${m.id}`} hover>
              <TableCell>
                <MessageLink message={m} search={search} />
              </TableCell>
              <TableCell sx={{ maxWidth: 320, overflowWrap: 'anywhere' }}>{m.subject ?? '(no subject)'}</TableCell>
              <TableCell>{m.stream}</TableCell>
              <TableCell>
                <StatusChip status={m.status} />
              </TableCell>
              <TableCell>{SOURCE_LABELS[m.source]}</TableCell>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(m.created_at)}</TableCell>
              <TableCell>
                <Flags message={m} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}

interface ListState {
  rows: Message[] | null;
  next: string | null;
  error: string;
  more: 'idle' | 'loading' | string;
}

/** MessagesPage is /messages; see the module comment. */
export function MessagesPage() {
  const [params, setParams] = useSearchParams();
  const search = params.toString() ? `?${params.toString()}` : '';
  const filters = filtersFromSearch(params);
  const filterKey = JSON.stringify(filters);
  const filtered = Object.keys(filters).length > 0;
  const narrow = useMediaQuery('(max-width:599px)', { noSsr: true });
  const [state, setState] = useState<ListState>({ rows: null, next: null, error: '', more: 'idle' });
  const [streams, setStreams] = useState<Array<ListRow<'listStreams'>> | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    callOperation('listStreams')
      .then((r) => live && setStreams(r.data))
      // Without the streams the filter still offers the one applied; the list says what failed if the gateway is down.
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    let live = true;
    setState({ rows: null, next: null, error: '', more: 'idle' });
    callOperation('listMessages', { query: { ...(JSON.parse(filterKey) as MessageFilters), limit: PAGE_SIZE } })
      .then((r) => live && setState({ rows: r.data, next: r.next_cursor, error: '', more: 'idle' }))
      .catch((e: Error) => live && setState({ rows: null, next: null, error: e.message, more: 'idle' }));
    return () => {
      live = false;
    };
  }, [filterKey, attempt]);

  const loadMore = useCallback(async () => {
    if (!state.next) return;
    setState((s) => ({ ...s, more: 'loading' }));
    try {
      const r = await callOperation('listMessages', { query: { ...(JSON.parse(filterKey) as MessageFilters), limit: PAGE_SIZE, cursor: state.next } });
      setState((s) => ({ ...s, rows: [...(s.rows ?? []), ...r.data], next: r.next_cursor, more: 'idle' }));
    } catch (e) {
      setState((s) => ({ ...s, more: (e as Error).message }));
    }
  }, [state.next, filterKey]);

  const apply = (values: FormValues) => {
    setParams(searchFromFilters({ ...values, since: localToIso(values.since), until: localToIso(values.until) }));
  };

  const { rows, error, more } = state;
  return (
    <Stack spacing={2}>
      <Typography variant="h5" component="h1">
        Messages
      </Typography>
      <Typography color="text.secondary">
        Every email the project sent or tried to send — blasts, workflows, the API and SMTP — one line per recipient, newest first. Open one for its timeline
        and the copy as sent.
      </Typography>
      <Card variant="outlined">
        <CardContent>
          <FilterForm applied={filters} streams={streams} onApply={apply} compact={narrow} />
        </CardContent>
      </Card>
      {error && (
        <Alert
          severity="error"
          action={
            <Button color="inherit" onClick={() => setAttempt((n) => n + 1)}>
              Retry
            </Button>
          }
        >
          Couldn’t load the messages: {error}
        </Alert>
      )}
      {!rows && !error && (
        <Box sx={{ display: 'flex', justifyContent: 'center', p: 3 }}>
          <CircularProgress aria-label="Loading messages" />
        </Box>
      )}
      {rows?.length === 0 &&
        (filtered ? (
          <Typography>No messages match these filters. Change them, or Clear to see every message.</Typography>
        ) : (
          <Typography>No messages yet. Every email the project sends — a blast, a workflow, the API or SMTP — shows here once it is queued.</Typography>
        ))}
      {!!rows?.length && (
        <>
          {narrow ? (
            <MessageCards rows={rows} search={search} />
          ) : (
            <Card variant="outlined">
              <MessageTable rows={rows} search={search} />
            </Card>
          )}
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
            <Typography variant="body2" color="text.secondary" aria-live="polite">
              {rows.length} shown{state.next ? ', older ones on request' : ', no more'}
            </Typography>
            {state.next && (
              <Button variant="outlined" onClick={() => void loadMore()} disabled={more === 'loading'}>
                {more === 'loading' ? 'Loading…' : 'Load more'}
              </Button>
            )}
          </Stack>
          {more !== 'idle' && more !== 'loading' && <Alert severity="error">Couldn’t load more messages: {more}</Alert>}
        </>
      )}
    </Stack>
  );
}
