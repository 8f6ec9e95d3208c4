/**
 * The Notifications screen at /account/notifications (spec part 1 §2 Notifications screen, §3 Notification / job log
 * entry, §7 GET {joblog}/joblog, §8 'Unable to load notifications:' + error, §9 1,000 loaded, names cut at 60).
 *
 * Loads the latest 1,000 job-log entries on mount and on Refresh: Job (the spec's label), Name (file or item name),
 * Started, Ended and Status — in progress / succeeded / failed, with the errors gathered from every end_details field
 * whose name contains 'error' shown in red beneath it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useDataProvider } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CircularProgress,
  LinearProgress,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import RefreshIcon from '@mui/icons-material/Refresh';
import type { AppDataProvider } from '../data/dataProvider';
import { formatInUtc, formatWhen } from '../account/eventDetails';
import { NOTIFICATIONS_LIMIT, NOTIFICATION_NAME_MAX, jobErrors, jobLabel, jobName, jobStatus, shortJobName, type JobLogEntry } from '../account/jobLog';

interface LoadState {
  loading: boolean;
  entries?: JobLogEntry[];
  error?: string;
}

function When({ value }: { value: string | null }) {
  if (!value) return null;
  return <span title={formatInUtc(value)}>{formatWhen(value)}</span>;
}

function StatusCell({ entry }: { entry: JobLogEntry }) {
  const status = jobStatus(entry);
  const errors = jobErrors(entry.end_details);
  const color = status === 'succeeded' ? 'success.main' : status === 'failed' ? 'error.main' : 'text.secondary';
  return (
    <>
      <Typography variant="body2" sx={{ color, fontWeight: 500 }}>
        {status}
      </Typography>
      {errors.map((e) => (
        <Typography key={e} variant="body2" color="error" sx={{ wordBreak: 'break-word' }}>
          {e}
        </Typography>
      ))}
    </>
  );
}

/** NotificationsPage is the /account/notifications screen. */
export function NotificationsPage() {
  const dataProvider = useDataProvider<AppDataProvider>();
  const [state, setState] = useState<LoadState>({ loading: true });
  const request = useRef(0);

  const load = useCallback(async () => {
    const mine = ++request.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const body = await dataProvider.callGateway('listJobLog', { query: { limit: NOTIFICATIONS_LIMIT } });
      if (mine === request.current) setState({ loading: false, entries: body.data ?? [] });
    } catch (error) {
      // Spec part 1 §8: a failed fetch records its error text and clears the loading flag.
      if (mine === request.current) setState((s) => ({ loading: false, entries: s.entries, error: (error as Error).message }));
    }
  }, [dataProvider]);

  useEffect(() => {
    const requests = request;
    void load();
    return () => {
      requests.current++; // ignore an answer arriving after unmount
    };
  }, [load]);

  const { loading, entries, error } = state;
  return (
    <Box>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 2 }}>
        <Typography variant="h5" component="h1" sx={{ flexGrow: 1 }}>
          Notifications
        </Typography>
        <Button variant="outlined" startIcon={<RefreshIcon />} onClick={() => void load()} disabled={loading}>
          Refresh
        </Button>
      </Stack>
      {error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          Unable to load notifications: {error}
        </Alert>
      )}
      {loading && !entries ? (
        <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
          <CircularProgress aria-label="Loading notifications" />
        </Box>
      ) : entries && entries.length === 0 ? (
        <Card variant="outlined">
          <Typography sx={{ p: 2 }}>Nothing here, yet</Typography>
        </Card>
      ) : entries ? (
        <Card variant="outlined">
          {loading && <LinearProgress aria-label="Refreshing notifications" />}
          <TableContainer>
            <Table size="small" aria-label="Notifications" aria-busy={loading}>
              <TableHead>
                <TableRow>
                  <TableCell>Job</TableCell>
                  <TableCell>Name</TableCell>
                  <TableCell>Started</TableCell>
                  <TableCell>Ended</TableCell>
                  <TableCell>Status</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {entries.map((entry) => {
                  const name = jobName(entry);
                  return (
                    <TableRow key={entry.id}>
                      <TableCell>{jobLabel(entry.job_name)}</TableCell>
                      <TableCell title={name.length > NOTIFICATION_NAME_MAX ? name : undefined}>{shortJobName(entry)}</TableCell>
                      <TableCell sx={{ whiteSpace: 'nowrap' }}>
                        <When value={entry.started_at} />
                      </TableCell>
                      <TableCell sx={{ whiteSpace: 'nowrap' }}>
                        <When value={entry.ended_at} />
                      </TableCell>
                      <TableCell>
                        <StatusCell entry={entry} />
                      </TableCell>
                    </TableRow>
                  );
                })}
              </TableBody>
            </Table>
          </TableContainer>
        </Card>
      ) : null}
    </Box>
  );
}
