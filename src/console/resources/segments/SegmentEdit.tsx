/**
 * The segment edit page, /people/segments/new/empty and /people/segments/edit/{id} (spec part 2 §2 Segments, §4
 * Segment, §7 Segments, §8): the New Segment / Edit Segment heading, the name with Save (new) or Rename
 * (existing), disabled while the name is blank; after a create it goes to the edit route. An existing segment shows
 * its members (In segment, each with Remove) and the other contacts (Not in segment, each with Add), both paged 10 at
 * a time and searched like the contacts list, and a filter (the segment-edit set) finds contacts to add; contacts can
 * only be added once the segment is saved. A built-in segment (the sunset policy's) shows its members read-only, with why.
 */
import { useState, type ReactElement } from 'react';
import {
  Datagrid,
  FunctionField,
  ListBase,
  Pagination,
  TextField as RaTextField,
  useGetOne,
  useListContext,
  useNotify,
  useRefresh,
  type RaRecord,
} from 'react-admin';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { Alert, Box, Button, Card, CardContent, Chip, CircularProgress, Grid, Link, Stack, Typography } from '@mui/material';
import { resourcesByName } from '../../../../generated/resources.gen';
import type { Schema } from '../../data/apiTypes';
import { callOperation, RETRY } from '../../data/gateway';
import { ResourceForm } from '../shared/ResourceForm';
import { SearchBox } from '../shared/SearchBox';
import { SegmentFilterAdd } from './SegmentFilterAdd';
import { BUILT_IN_REASON, isBuiltIn } from './SegmentList';

function MemberRows({ action }: { action?: (record: RaRecord) => ReactElement }) {
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
        {action && <FunctionField label="" render={action} />}
      </Datagrid>
      <Pagination rowsPerPageOptions={[10]} />
    </>
  );
}

/** One of the two member lists: contacts in the segment (with Remove) or not in it (with Add). */
function MemberList({ segmentId, inSegment, onChanged, readOnly }: { segmentId: string; inSegment: boolean; onChanged: () => void; readOnly?: boolean }) {
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
            action={
              readOnly
                ? undefined
                : (record) => (
                    <Button size="small" disabled={busy !== ''} onClick={() => change(record)} aria-label={`${inSegment ? 'Remove' : 'Add'} ${record.email}`}>
                      {inSegment ? 'Remove' : 'Add'}
                    </Button>
                  )
            }
          />
        </ListBase>
      </CardContent>
    </Card>
  );
}

/**
 * SegmentMembers is the edit route's part under the generated name form: how many contacts the segment has, the
 * filter that finds contacts to add, and the two member lists. On the New Segment route it says to save first.
 */
function SegmentMembers({ id }: { id?: string }) {
  const refresh = useRefresh();
  const { data: segment, refetch } = useGetOne<Schema<'segment', 'Segment'>>('segments', { id: id ?? '' }, { enabled: !!id });
  const changed = () => void refetch();
  return (
    <Box sx={{ mt: 2 }}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1, mb: 2 }}>
        {segment ? (
          <Typography variant="body2" color="text.secondary" aria-live="polite" sx={{ mr: 'auto' }}>
            {segment.num_users === 1 ? '1 contact' : `${segment.num_users.toLocaleString()} contacts`} in this segment.
          </Typography>
        ) : (
          <Typography variant="body2" color="text.secondary" sx={{ mr: 'auto' }}>
            Save the segment with a name, then add contacts to it.
          </Typography>
        )}
        <Button variant="outlined" size="small" component={RouterLink} to="/people/segments/new/filter">
          From Filters
        </Button>
        <Button variant="outlined" size="small" component={RouterLink} to="/people/segments">
          All segments
        </Button>
      </Stack>
      {id && segment && (
        <>
          <SegmentFilterAdd
            segmentId={id}
            onAdded={() => {
              changed();
              refresh();
            }}
          />
          <Grid container spacing={2}>
            <Grid size={{ xs: 12, lg: 6 }}>
              <MemberList segmentId={id} inSegment onChanged={changed} />
            </Grid>
            <Grid size={{ xs: 12, lg: 6 }}>
              <MemberList segmentId={id} inSegment={false} onChanged={changed} />
            </Grid>
          </Grid>
        </>
      )}
    </Box>
  );
}

/**
 * BuiltInSegment is a built-in segment's page: its name marked Built-in, why it is not edited here (the policy that
 * keeps it, with a link to that setting), and its members, read-only.
 */
function BuiltInSegment({ segment }: { segment: Schema<'segment', 'Segment'> }) {
  return (
    <Box>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1, mb: 2 }}>
        <Typography variant="h5" component="h1" sx={{ overflowWrap: 'anywhere' }}>
          {segment.name}
        </Typography>
        <Chip size="small" label="Built-in" variant="outlined" />
      </Stack>
      <Alert severity="info" sx={{ mb: 2 }}>
        {BUILT_IN_REASON}{' '}
        <Link component={RouterLink} to="/account/audience-health">
          Change the sunset policy
        </Link>
      </Alert>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1, mb: 2 }}>
        <Typography variant="body2" color="text.secondary" aria-live="polite" sx={{ mr: 'auto' }}>
          {segment.num_users === 1 ? '1 contact' : `${segment.num_users.toLocaleString()} contacts`} in this segment.
        </Typography>
        <Button variant="outlined" size="small" component={RouterLink} to="/people/segments">
          All segments
        </Button>
      </Stack>
      <MemberList segmentId={segment.id} inSegment readOnly onChanged={() => undefined} />
    </Box>
  );
}

/**
 * SegmentEdit is the New Segment page (no id) and the Edit Segment page: the name form is generated from the
 * segments resource's form in openapi/segment.yaml (Save, or Rename once saved; disabled while the name is blank or
 * unchanged), the members below it.
 */
export function SegmentEdit() {
  const { id } = useParams();
  const { data: segment } = useGetOne<Schema<'segment', 'Segment'>>('segments', { id: id ?? '' }, { enabled: !!id });
  if (segment && isBuiltIn(segment)) return <BuiltInSegment segment={segment} />;
  return (
    <ResourceForm definition={resourcesByName.segments} entity="segment" mode={id ? 'edit' : 'create'} requiredFields={['name']} wide>
      <SegmentMembers id={id} />
    </ResourceForm>
  );
}
