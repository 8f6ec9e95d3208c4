/**
 * "Add contacts by filter" on the segment edit page (spec part 2 §3 Filters: the segment-edit filter set, which drops
 * num_in_segment, city, state, json and the workflow dates and adds is_in_segment): build filters,
 * preview the first 100 matching contacts (filter_users with segment_edit), and add the ones shown to the segment.
 */
import { useState } from 'react';
import { useNotify } from 'react-admin';
import { Alert, Button, Card, CardContent, CircularProgress, Stack, Typography } from '@mui/material';
import { BLANK_ROW, builderErrors, SEGMENT_EDIT_FILTER_ATTRIBUTES, toUserFilters, type BuilderRow, type Conjunction } from '../../../domain/segmentFilter';
import type { ListRow } from '../../data/apiTypes';
import { callOperation, RETRY } from '../../data/gateway';
import { FilterBuilder, JoinSelect } from './FilterBuilder';

/** SegmentFilterAdd finds contacts with the segment-edit filters and adds them to segment `segmentId`. */
export function SegmentFilterAdd({ segmentId, onAdded }: { segmentId: string; onAdded: () => void }) {
  const notify = useNotify();
  const [rows, setRows] = useState<BuilderRow[]>([{ ...BLANK_ROW }]);
  const [conjunction, setConjunction] = useState<Conjunction>('and');
  const [errors, setErrors] = useState<string[]>([]);
  const [found, setFound] = useState<{ users: Array<ListRow<'filterUsers', 'users'>>; total: number } | null>(null);
  const [busy, setBusy] = useState(false);

  const preview = async () => {
    const errs = builderErrors(rows, SEGMENT_EDIT_FILTER_ATTRIBUTES);
    setErrors(errs);
    if (errs.length) return;
    setBusy(true);
    try {
      // offset and total are the spec's defaults, sent since the generated body type lists defaulted fields as set.
      const res = await callOperation(
        'filterUsers',
        { body: { conjunction, user_filters: toUserFilters(rows), segment_edit: true, limit: 100, offset: 0, total: 'exact' } },
        RETRY.segments,
      );
      setFound({ users: res.users, total: res.total_users });
    } catch (e) {
      notify(`Couldn't filter users: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  const add = async () => {
    if (!found?.users.length) return;
    setBusy(true);
    try {
      const res = await callOperation('addSegmentUsers', { path: { id: segmentId }, body: { user_ids: found.users.map((u) => u.id) } }, RETRY.write);
      notify(`Successfully added ${res.num_added} user(s) to segment`, { type: 'success', autoHideDuration: 1000 });
      setFound(null);
      onAdded();
    } catch (e) {
      notify(`Couldn't add users to segment: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card variant="outlined" sx={{ mb: 2 }} component="section" aria-label="Add contacts by filter">
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          Add contacts by filter
        </Typography>
        <Stack spacing={1.5}>
          <JoinSelect value={conjunction} onChange={setConjunction} />
          <FilterBuilder
            rows={rows}
            onChange={(r) => {
              setRows(r);
              setErrors([]);
              setFound(null);
            }}
            attributes={SEGMENT_EDIT_FILTER_ATTRIBUTES}
          />
          {errors.length > 0 && (
            <Alert severity="error" role="alert">
              Filter errors: {errors.join('; ')}
            </Alert>
          )}
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
            <Button variant="outlined" onClick={preview} disabled={busy}>
              {busy && !found ? <CircularProgress size={20} /> : 'Find contacts'}
            </Button>
            {found && (
              <>
                <Typography aria-live="polite">
                  {found.total === 1 ? '1 contact matches' : `${found.total.toLocaleString()} contacts match`}
                  {found.total > found.users.length ? ` (the first ${found.users.length} can be added at a time)` : ''}
                </Typography>
                <Button variant="contained" onClick={add} disabled={busy || found.users.length === 0}>
                  Add {found.users.length === 1 ? 'this contact' : `these ${found.users.length} contacts`}
                </Button>
              </>
            )}
          </Stack>
        </Stack>
      </CardContent>
    </Card>
  );
}
