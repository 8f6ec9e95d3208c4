/**
 * The segment edit page, /people/segments/new/empty and /people/segments/edit/{id} (spec part 2 §2 Segments, §4
 * Segment, §7 Segments, §8): the New Segment / Edit Segment heading, the name with Save (new) or Rename
 * (existing), disabled while the name is blank; after a create it goes to the edit route. An existing segment shows
 * its members (In segment, each with Remove) and the other contacts (Not in segment, each with Add), both paged 10 at
 * a time and searched like the contacts list, and a filter (the segment-edit set) finds contacts to add; contacts can
 * only be added once the segment is saved.
 */
import { useEffect, useState, type FormEvent, type ReactElement } from 'react';
import { Datagrid, FunctionField, ListBase, Pagination, TextField as RaTextField, useListContext, useNotify, useRefresh, type RaRecord } from 'react-admin';
import { Link as RouterLink, useNavigate, useParams } from 'react-router-dom';
import { Alert, Box, Button, Card, CardContent, CircularProgress, Grid, Stack, TextField, Typography } from '@mui/material';
import { isBlank } from '../../../domain/validation';
import type { Schema } from '../../data/apiTypes';
import { callOperation, RETRY } from '../../data/gateway';
import { uuidv4 } from '../../uuid';
import { SearchBox } from '../shared/SearchBox';
import { SegmentFilterAdd } from './SegmentFilterAdd';

function MemberRows({ action }: { action: (record: RaRecord) => ReactElement }) {
  const { isPending, total, filterValues, error } = useListContext();
  if (error) return <Alert severity="error">Couldn't fetch contacts: {(error as Error).message}</Alert>;
  if (isPending) return <CircularProgress size={24} aria-label="Loading contacts" />;
  if (!total) return <Typography sx={{ p: 1 }}>{filterValues.q ? 'No contacts match the search.' : 'No contacts here.'}</Typography>;
  return (
    <>
      <Datagrid bulkActionButtons={false} rowClick={false}>
        <RaTextField source="email" label="Email" sortable={false} />
        <RaTextField source="first_name" label="First name" sortable={false} />
        <RaTextField source="last_name" label="Last name" sortable={false} />
        <FunctionField label="" render={action} />
      </Datagrid>
      <Pagination rowsPerPageOptions={[10]} />
    </>
  );
}

/** One of the two member lists: contacts in the segment (with Remove) or not in it (with Add). */
function MemberList({ segmentId, inSegment, onChanged }: { segmentId: string; inSegment: boolean; onChanged: () => void }) {
  const notify = useNotify();
  const refresh = useRefresh();
  const [busy, setBusy] = useState('');
  const change = async (record: RaRecord) => {
    setBusy(String(record.id));
    try {
      if (inSegment) {
        await callOperation('removeSegmentUsers', { path: { id: segmentId, user_ids: String(record.id) } }, RETRY.write);
        notify('Successfully removed users from segment', { type: 'success', autoHideDuration: 1000 });
      } else {
        const res = await callOperation('addSegmentUsers', { path: { id: segmentId }, body: { user_ids: [String(record.id)] } }, RETRY.write);
        notify(`Successfully added ${res.num_added} user(s) to segment`, { type: 'success', autoHideDuration: 1000 });
      }
      onChanged();
      refresh();
    } catch (e) {
      notify(`${inSegment ? "Couldn't remove users from segment" : "Couldn't add users to segment"}: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy('');
    }
  };
  const title = inSegment ? 'In segment' : 'Not in segment';
  return (
    <Card variant="outlined" component="section" aria-label={title}>
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          {title}
        </Typography>
        <ListBase
          resource="contacts"
          storeKey={false}
          perPage={10}
          sort={{ field: 'email', order: 'ASC' }}
          filter={inSegment ? { in_segment_ids: segmentId } : { not_in_segment_ids: segmentId }}
          disableSyncWithLocation
        >
          <SearchBox fields={['all']} idPrefix={inSegment ? 'in-segment' : 'not-in-segment'} />
          <MemberRows
            action={(record) => (
              <Button size="small" disabled={busy !== ''} onClick={() => change(record)} aria-label={`${inSegment ? 'Remove' : 'Add'} ${record.email}`}>
                {inSegment ? 'Remove' : 'Add'}
              </Button>
            )}
          />
        </ListBase>
      </CardContent>
    </Card>
  );
}

/** SegmentEdit is the New Segment page (no id) and the Edit Segment page. */
export function SegmentEdit() {
  const { id } = useParams();
  const navigate = useNavigate();
  const notify = useNotify();
  const refresh = useRefresh();
  const [segment, setSegment] = useState<Schema<'segment', 'Segment'> | null>(null);
  const [loadError, setLoadError] = useState('');
  const [name, setName] = useState('');
  const [saving, setSaving] = useState(false);

  const load = async (segmentId: string) => {
    try {
      const res = await callOperation('listSegments', { query: { ids: segmentId, limit: 1 } }, RETRY.segments);
      if (!res.data.length) {
        setLoadError(`Couldn't find segment with id ${segmentId}`);
        return;
      }
      setSegment(res.data[0]);
      return res.data[0];
    } catch (e) {
      setLoadError(`Couldn't fetch segments: ${(e as Error).message}`);
    }
  };
  useEffect(() => {
    setSegment(null);
    setLoadError('');
    if (id) void load(id).then((s) => s && setName(s.name));
    else setName('');
  }, [id]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (isBlank(name)) return;
    setSaving(true);
    try {
      if (id) {
        const res = await callOperation('renameSegment', { path: { id }, body: { name: name.trim() } }, RETRY.write);
        setSegment(res.data);
        notify('Successfully saved segment name', { type: 'success' });
      } else {
        const res = await callOperation('saveSegments', { body: { segments: [{ id: uuidv4(), name: name.trim(), user_ids: [] }] } }, RETRY.write);
        notify('Successfully saved segment', { type: 'success' });
        navigate(`/people/segments/edit/${res.data[0].id}`);
      }
    } catch (err) {
      notify(`${id ? "Couldn't save segment name" : "Couldn't save segment"}: ${(err as Error).message}`, { type: 'error' });
    } finally {
      setSaving(false);
    }
  };

  if (loadError) return <Alert severity="error">{loadError}</Alert>;
  if (id && !segment) return <CircularProgress aria-label="Loading segment" />;
  return (
    <Box>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', gap: 1 }}>
        <Typography variant="h5" component="h1">
          {id ? 'Edit Segment' : 'New Segment'}
        </Typography>
        <Stack direction="row" spacing={1}>
          <Button variant="outlined" size="small" component={RouterLink} to="/people/segments/new/filter">
            From Filters
          </Button>
          <Button variant="outlined" size="small" component={RouterLink} to="/people/segments">
            All segments
          </Button>
        </Stack>
      </Stack>
      <Card variant="outlined" sx={{ mb: 2 }}>
        <CardContent>
          <Stack component="form" onSubmit={submit} noValidate direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
            <TextField
              size="small"
              label="Name"
              required
              value={name}
              onChange={(e) => setName(e.target.value)}
              sx={{ minWidth: 320 }}
              error={isBlank(name) && (id !== undefined || name !== '')}
              helperText={isBlank(name) ? 'Required field' : ' '}
            />
            <Button type="submit" variant="contained" disabled={saving || isBlank(name) || (segment !== null && name.trim() === segment.name)}>
              {id ? 'Rename' : 'Save'}
            </Button>
          </Stack>
          {segment ? (
            <Typography variant="body2" color="text.secondary" aria-live="polite">
              {segment.num_users === 1 ? '1 contact' : `${segment.num_users.toLocaleString()} contacts`} in this segment.
            </Typography>
          ) : (
            <Typography variant="body2" color="text.secondary">
              Save the segment with a name, then add contacts to it.
            </Typography>
          )}
        </CardContent>
      </Card>
      {id && segment && (
        <SegmentFilterAdd
          segmentId={id}
          onAdded={() => {
            void load(id);
            refresh();
          }}
        />
      )}
      {id && segment && (
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, lg: 6 }}>
            <MemberList segmentId={id} inSegment onChanged={() => void load(id)} />
          </Grid>
          <Grid size={{ xs: 12, lg: 6 }}>
            <MemberList segmentId={id} inSegment={false} onChanged={() => void load(id)} />
          </Grid>
        </Grid>
      )}
    </Box>
  );
}
