/** What the back-office's pages share: dates, the 401 handler, a project's state chips, list loading, the audit table. */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import { Box, Chip, Link, Paper, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { OperatorApiError, type AuditEntry, type ProjectRow } from './operatorApi';

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** useFailure returns a handler that sends the browser to the sign-in page when a call answers 401 (no or an expired operator session). */
export function useFailure(): (err: unknown) => string {
  const navigate = useNavigate();
  return useCallback(
    (err: unknown) => {
      if (err instanceof OperatorApiError && err.status === 401) navigate('/operator/login', { replace: true });
      return err instanceof Error ? err.message : String(err);
    },
    [navigate],
  );
}

/** StateChips shows a project's sandbox and sending state. */
export function StateChips({ p }: { p: ProjectRow }) {
  return (
    <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
      <Chip size="small" color={p.not_in_sandbox ? 'success' : 'default'} label={p.not_in_sandbox ? 'Active' : 'Sandbox'} />
      {p.sending_suspended && <Chip size="small" color="error" label="Suspended" />}
      {p.sending_paused && <Chip size="small" color="warning" label="Paused (reputation)" />}
      {!p.not_in_sandbox && p.activation_requested_at && <Chip size="small" color="primary" variant="outlined" label="Activation requested" />}
    </Box>
  );
}

/** Scroll keeps a wide table usable at 390 px: it scrolls sideways inside its paper. */
export const Scroll = ({ children }: { children: ReactNode }) => <Paper sx={{ overflowX: 'auto' }}>{children}</Paper>;

/**
 * useList loads one list of the operator gateway once: the rows (null while loading) and an error text; a 401 sends
 * the browser to the sign-in page.
 */
export function useList<T>(load: () => Promise<{ data: T[] }>): { rows: T[] | null; error: string } {
  const fail = useFailure();
  const [rows, setRows] = useState<T[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    load().then(
      (r) => setRows(r.data),
      (e) => setError(fail(e)),
    );
  }, [load, fail]);
  return { rows, error };
}

/** describeChange renders an audit entry's before → after as short text. */
function describeChange(e: AuditEntry): string {
  const keys = new Set([...Object.keys(e.before ?? {}), ...Object.keys(e.after ?? {})]);
  return [...keys]
    .filter((k) => JSON.stringify(e.before?.[k]) !== JSON.stringify(e.after?.[k]))
    .map((k) => `${k}: ${JSON.stringify(e.before?.[k] ?? null)} → ${JSON.stringify(e.after?.[k] ?? null)}`)
    .join('; ');
}

/** AuditTable shows audit entries: when, who, what, target, the change. */
export function AuditTable({ rows }: { rows: AuditEntry[] }) {
  if (!rows.length) return <Typography color="text.secondary">No operator actions yet.</Typography>;
  return (
    <Scroll>
      <Table size="small" aria-label="Audit log">
        <TableHead>
          <TableRow>
            <TableCell>When</TableCell>
            <TableCell>Who</TableCell>
            <TableCell>Action</TableCell>
            <TableCell>Target</TableCell>
            <TableCell>Change</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((e) => (
            <TableRow key={e.id} data-testid="audit-entry">
              <TableCell>{when(e.created_at)}</TableCell>
              <TableCell>{e.actor}</TableCell>
              <TableCell>{e.action.replace(/_/g, ' ')}</TableCell>
              <TableCell>
                {e.project_id ? (
                  <Link component={RouterLink} to={`/operator/projects/${e.project_id}`}>
                    {e.target_type}
                  </Link>
                ) : (
                  e.target_type
                )}
              </TableCell>
              <TableCell>{describeChange(e)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Scroll>
  );
}
