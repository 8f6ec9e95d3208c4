/** One project in the back-office: its state, activation request and actions (activate / return to the sandbox, suspend / resume sending, verify a sender persona, reset an admin's password), its admins, personas and audit entries. */
import { useCallback, useEffect, useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router-dom';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Link,
  Table,
  TableBody,
  TableCell,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { ok, operatorClient, type ProjectDetail } from './operatorApi';
import { when, useFailure, StateChips, Scroll, AuditTable } from './common';
import { MessageCard } from './HomePage';

/** ProjectPage is one project: its state, activation request, actions, admins, personas and audit entries. */
export function ProjectPage() {
  const { projectId = '' } = useParams();
  const fail = useFailure();
  const [p, setP] = useState<ProjectDetail | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [suspending, setSuspending] = useState(false);
  const [reason, setReason] = useState('');
  const [confirmReset, setConfirmReset] = useState<{ id: string; email: string } | null>(null);
  const [newPassword, setNewPassword] = useState<{ email: string; password: string } | null>(null);
  const load = useCallback(() => {
    operatorClient
      .GET('/projects/{project_id}', { params: { path: { project_id: projectId } } })
      .then(ok)
      .then(
        (r) => {
          setP(r);
          setError('');
        },
        (e) => setError(fail(e)),
      );
  }, [projectId, fail]);
  useEffect(load, [load]);

  const act = async (run: () => Promise<unknown>) => {
    setBusy(true);
    setError('');
    try {
      await run();
      load();
    } catch (e) {
      setError(fail(e));
    } finally {
      setBusy(false);
    }
  };
  const path = { params: { path: { project_id: projectId } } };

  if (!p) return error ? <Alert severity="error">{error}</Alert> : <CircularProgress aria-label="Loading" />;
  return (
    <Box sx={{ display: 'grid', gap: 3 }}>
      <Box>
        <Link component={RouterLink} to="/operator" variant="body2">
          ← All projects
        </Link>
        <Typography variant="h5" component="h1" sx={{ mt: 1 }}>
          {p.company_name} / {p.project_name}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {p.project_id} · created {when(p.created_at)} · {p.sends_this_month.toLocaleString()} sends this month · {p.suppressions.toLocaleString()}{' '}
          suppressions
        </Typography>
        <Box sx={{ mt: 1 }}>
          <StateChips p={p} />
        </Box>
        {p.sending_suspended && (
          <Alert severity="error" sx={{ mt: 1 }}>
            Sending suspended: {p.suspend_reason}
          </Alert>
        )}
      </Box>
      {error && <Alert severity="error">{error}</Alert>}
      {p.delivery_warnings.length > 0 && (
        <Alert severity="warning" data-testid="delivery-warnings">
          {p.not_in_sandbox ? 'Delivery warnings:' : 'Before activating, note:'}
          <ul style={{ margin: 0, paddingLeft: 20 }}>
            {p.delivery_warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Alert>
      )}
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        {p.not_in_sandbox ? (
          <Button variant="outlined" disabled={busy} onClick={() => act(async () => ok(await operatorClient.POST('/projects/{project_id}/sandbox', path)))}>
            Return to sandbox
          </Button>
        ) : (
          <Button variant="contained" disabled={busy} onClick={() => act(async () => ok(await operatorClient.POST('/projects/{project_id}/activate', path)))}>
            Activate
          </Button>
        )}
        {p.sending_suspended ? (
          <Button variant="outlined" disabled={busy} onClick={() => act(async () => ok(await operatorClient.POST('/projects/{project_id}/resume', path)))}>
            Resume sending
          </Button>
        ) : (
          <Button variant="outlined" color="error" disabled={busy} onClick={() => setSuspending(true)}>
            Suspend sending
          </Button>
        )}
      </Box>

      <Box>
        <Typography variant="h6" component="h2" gutterBottom>
          Messages and activation requests
        </Typography>
        {p.messages.length ? (
          <Box sx={{ display: 'grid', gap: 1.5 }}>
            {p.messages.map((m) => (
              <MessageCard key={m.id} m={m} />
            ))}
          </Box>
        ) : (
          <Typography color="text.secondary">None from this project’s admins.</Typography>
        )}
      </Box>

      <Box>
        <Typography variant="h6" component="h2" gutterBottom>
          Admins
        </Typography>
        <Scroll>
          <Table size="small" aria-label="Admins">
            <TableBody>
              {p.admins.map((a) => (
                <TableRow key={a.id}>
                  <TableCell>{a.email}</TableCell>
                  <TableCell>{[a.first_name, a.last_name].filter(Boolean).join(' ')}</TableCell>
                  <TableCell align="right">
                    <Button size="small" disabled={busy} onClick={() => setConfirmReset({ id: a.id, email: a.email })}>
                      Reset password
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Scroll>
      </Box>

      <Box>
        <Typography variant="h6" component="h2" gutterBottom>
          Sender personas
        </Typography>
        {p.personas.length ? (
          <Scroll>
            <Table size="small" aria-label="Sender personas">
              <TableBody>
                {p.personas.map((s) => (
                  <TableRow key={s.id}>
                    <TableCell>{s.email}</TableCell>
                    <TableCell>{s.name}</TableCell>
                    <TableCell>{s.verified_at ? `Verified ${when(s.verified_at)}` : 'Not verified'}</TableCell>
                    <TableCell align="right">
                      {!s.verified_at && (
                        <Button
                          size="small"
                          disabled={busy}
                          onClick={() =>
                            act(async () => ok(await operatorClient.POST('/personas/{persona_id}/verify', { params: { path: { persona_id: s.id } } })))
                          }
                        >
                          Verify
                        </Button>
                      )}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Scroll>
        ) : (
          <Typography color="text.secondary">No sender personas.</Typography>
        )}
      </Box>

      <Box>
        <Typography variant="h6" component="h2" gutterBottom>
          Audit log
        </Typography>
        <AuditTable rows={p.audit} />
      </Box>

      <Dialog open={suspending} onClose={() => setSuspending(false)} aria-labelledby="suspend-title">
        <DialogTitle id="suspend-title">Suspend all sending?</DialogTitle>
        <DialogContent>
          <DialogContentText>
            None of this project’s emails leaves, not even test emails, until an operator resumes it. The customer sees the reason.
          </DialogContentText>
          <TextField label="Reason" fullWidth multiline minRows={2} sx={{ mt: 2 }} value={reason} onChange={(e) => setReason(e.target.value)} autoFocus />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setSuspending(false)}>Cancel</Button>
          <Button
            color="error"
            disabled={!reason.trim() || busy}
            onClick={() => {
              setSuspending(false);
              void act(async () => ok(await operatorClient.POST('/projects/{project_id}/suspend', { ...path, body: { reason: reason.trim() } })));
            }}
          >
            Suspend
          </Button>
        </DialogActions>
      </Dialog>
      <Dialog open={!!confirmReset} onClose={() => setConfirmReset(null)} aria-labelledby="reset-title">
        <DialogTitle id="reset-title">Reset {confirmReset?.email}’s password?</DialogTitle>
        <DialogContent>
          <DialogContentText>Their current password stops working at once. You get a new one to pass on; it is shown only once.</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirmReset(null)}>Cancel</Button>
          <Button
            color="error"
            onClick={() => {
              const target = confirmReset!;
              setConfirmReset(null);
              void act(async () =>
                setNewPassword(ok(await operatorClient.POST('/admins/{admin_id}/reset_password', { params: { path: { admin_id: target.id } } }))),
              );
            }}
          >
            Reset password
          </Button>
        </DialogActions>
      </Dialog>
      <Dialog open={!!newPassword} onClose={() => setNewPassword(null)} aria-labelledby="password-title">
        <DialogTitle id="password-title">New password for {newPassword?.email}</DialogTitle>
        <DialogContent>
          <DialogContentText component="div">
            <Box component="code" sx={{ fontSize: '1.1rem', userSelect: 'all' }} data-testid="new-password">
              {newPassword?.password}
            </Box>
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setNewPassword(null)}>Done</Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}
