/**
 * The Filter Contacts screen, /people/segments/new/filter (spec part 2 §2 Segments, §5 Segment, §7 Segments, §8):
 * build a filter list joined by 'and' (match every filter) or 'or' (match any), preview up to 100
 * matching contacts with their total (Email, First Name, Last Name, Added; each email opens the contact in a new tab),
 * and save it as a segment, which the server builds as a job. The spec's toast ("Successfully enqueued
 * segment creation for {name} w/{count} contacts") reads as plumbing; it now says "Segment ‘{name}’ is being created
 * with {count} contacts" and the page moves to the segments list, where the segment shows once built. Errors in the
 * filters show as 'Filter errors: ...' before anything is sent.
 */
import { useState, type FormEvent } from 'react';
import { useNotify } from 'react-admin';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
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
} from '@mui/material';
import {
  aboutCount,
  BLANK_ROW,
  builderErrors,
  SEGMENT_FILTER_ATTRIBUTES,
  toUserFilters,
  type BuilderRow,
  type Conjunction,
} from '../../../domain/segmentFilter';
import { isBlank } from '../../../domain/validation';
import type { ListRow } from '../../data/apiTypes';
import { callOperation, RETRY } from '../../data/gateway';
import { formatDate } from '../shared/ResourceList';
import { FilterBuilder, JoinSelect } from './FilterBuilder';

/** SegmentFilterPage is /people/segments/new/filter. */
export function SegmentFilterPage() {
  const notify = useNotify();
  const navigate = useNavigate();
  const [rows, setRows] = useState<BuilderRow[]>([{ ...BLANK_ROW }]);
  const [conjunction, setConjunction] = useState<Conjunction>('and');
  const [name, setName] = useState('');
  const [shownErrors, setShownErrors] = useState<string[]>([]);
  const [preview, setPreview] = useState<{ users: Array<ListRow<'filterUsers', 'users'>>; total: number; estimate: boolean } | null>(null);
  const [busy, setBusy] = useState<'' | 'preview' | 'save'>('');
  const [nameTouched, setNameTouched] = useState(false);

  const change = (next: BuilderRow[]) => {
    setRows(next);
    setShownErrors([]);
  };
  const body = () => ({ conjunction, user_filters: toUserFilters(rows) });
  const check = () => {
    const errors = builderErrors(rows, SEGMENT_FILTER_ATTRIBUTES);
    setShownErrors(errors);
    return errors.length === 0;
  };

  const runPreview = async () => {
    if (!check()) return;
    setBusy('preview');
    try {
      // segment_edit and offset are the spec's defaults, sent since the generated body type lists defaulted fields as set.
      // The page and an estimated total first (at once, even over a million contacts), then the exact total.
      const asked = body();
      const quick = await callOperation('filterUsers', { body: { ...asked, segment_edit: false, limit: 100, offset: 0, total: 'estimate' } }, RETRY.segments);
      setPreview({ users: quick.users, total: quick.total_users, estimate: quick.total_is_estimate });
      if (quick.total_is_estimate) {
        const exact = await callOperation('filterUsers', { body: { ...asked, segment_edit: false, limit: 100, offset: 0, total: 'exact' } }, RETRY.segments);
        // Only if the filters are still the ones asked about (the user may have run another preview meanwhile).
        setPreview((shown) => (shown && shown.users === quick.users ? { users: exact.users, total: exact.total_users, estimate: false } : shown));
      }
    } catch (e) {
      notify(`Couldn't filter users: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy('');
    }
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setNameTouched(true);
    if (isBlank(name) || !check()) return;
    setBusy('save');
    try {
      const res = await callOperation('createSegmentFromFilters', { body: { ...body(), name: name.trim() } }, RETRY.write);
      notify(`Segment ‘${name.trim()}’ is being created with ${res.num_users.toLocaleString('en-US')} contact${res.num_users === 1 ? '' : 's'}`, {
        type: 'success',
      });
      navigate('/people/segments');
    } catch (err) {
      notify(`Couldn't create segment from filters: ${(err as Error).message}`, { type: 'error' });
    } finally {
      setBusy('');
    }
  };

  return (
    <Box component="form" onSubmit={save} noValidate>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', gap: 1 }}>
        <Typography variant="h5" component="h1">
          Filter Contacts
        </Typography>
        <Button variant="outlined" size="small" component={RouterLink} to="/people/segments">
          All segments
        </Button>
      </Stack>
      <Card variant="outlined" sx={{ mb: 2 }}>
        <CardContent>
          <Stack spacing={2}>
            <Typography variant="body2" color="text.secondary">
              Pick what to match: each filter names a contact field, an operator and a value. Dates compare by the UTC day. Save the filters as a segment to
              send to the contacts that match when the segment is built.
            </Typography>
            <JoinSelect
              value={conjunction}
              onChange={(v) => {
                setConjunction(v);
                setShownErrors([]);
              }}
            />
            <FilterBuilder rows={rows} onChange={change} attributes={SEGMENT_FILTER_ATTRIBUTES} />
            {shownErrors.length > 0 && (
              <Alert severity="error" role="alert">
                Filter errors: {shownErrors.join('; ')}
              </Alert>
            )}
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
              <TextField
                size="small"
                label="Segment name"
                required
                value={name}
                onChange={(e) => setName(e.target.value)}
                onBlur={() => setNameTouched(true)}
                error={nameTouched && isBlank(name)}
                helperText={nameTouched && isBlank(name) ? 'Required field' : ' '}
                sx={{ minWidth: 280 }}
              />
              <Button type="submit" variant="contained" disabled={busy !== '' || isBlank(name)} sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}>
                {busy === 'save' ? <CircularProgress size={20} /> : 'Save as segment'}
              </Button>
              <Button variant="outlined" onClick={runPreview} disabled={busy !== ''} sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}>
                {busy === 'preview' ? <CircularProgress size={20} /> : 'Preview'}
              </Button>
            </Stack>
          </Stack>
        </CardContent>
      </Card>
      {preview && (
        <Card variant="outlined">
          <CardContent>
            <Typography variant="h6" component="h2" aria-live="polite">
              {preview.estimate
                ? `About ${aboutCount(preview.total)} contacts match (counting…)`
                : preview.total === 1
                  ? '1 contact matches'
                  : `${preview.total.toLocaleString()} contacts match`}
              {preview.total > preview.users.length ? ` (showing ${preview.users.length})` : ''}
            </Typography>
            {preview.users.length === 0 ? (
              <Typography sx={{ mt: 1 }}>No contacts match these filters.</Typography>
            ) : (
              <Table size="small" aria-label="Preview">
                <TableHead>
                  <TableRow>
                    <TableCell>Email</TableCell>
                    <TableCell>First Name</TableCell>
                    <TableCell>Last Name</TableCell>
                    <TableCell>Added</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {preview.users.map((u) => (
                    <TableRow key={u.id}>
                      <TableCell>
                        <Link href={`/people/users/edit/${u.id}`} target="_blank" rel="noopener">
                          {u.email}
                        </Link>
                      </TableCell>
                      <TableCell>{u.first_name}</TableCell>
                      <TableCell>{u.last_name}</TableCell>
                      <TableCell>{formatDate(u.created_at)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            )}
          </CardContent>
        </Card>
      )}
    </Box>
  );
}
