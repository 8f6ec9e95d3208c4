/**
 * The operators' back-office at /operator: for the people who run the service, not for customers. Its
 * own sign-in (/operator/login, the mw_operator cookie), then companies and projects (search by company, project or
 * admin email), one project with its activation request and the actions (activate / return to the sandbox, suspend /
 * resume sending, verify a sender persona, reset an admin's password), the contact-form messages and the audit log.
 * Loaded only when /operator is opened; it never reads or writes the customer session.
 */
import { useCallback, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link as RouterLink, Route, Routes, useNavigate, useParams } from 'react-router-dom';
import {
  Alert,
  AppBar,
  Box,
  Button,
  Chip,
  CircularProgress,
  Container,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Link,
  Paper,
  Tab,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Tabs,
  TextField,
  Toolbar,
  Typography,
} from '@mui/material';
import { ok, OperatorApiError, operatorClient, type AuditEntry, type OperatorMessage, type ProjectDetail, type ProjectRow } from './operatorApi';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** useFailure returns a handler that sends the browser to the sign-in page when a call answers 401 (no or an expired operator session). */
function useFailure(): (err: unknown) => string {
  const navigate = useNavigate();
  return useCallback(
    (err: unknown) => {
      if (err instanceof OperatorApiError && err.status === 401) navigate('/operator/login', { replace: true });
      return err instanceof Error ? err.message : String(err);
    },
    [navigate],
  );
}

/** OperatorLogin is the operators' sign-in form. */
function OperatorLogin() {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      ok(await operatorClient.POST('/login', { body: { email: email.trim(), password } }));
      navigate('/operator', { replace: true });
    } catch (err) {
      setError(err instanceof OperatorApiError && err.status === 401 ? 'Wrong email or password.' : (err as Error).message);
      setBusy(false);
    }
  };
  return (
    <Container maxWidth="xs" sx={{ py: 8 }}>
      <Paper sx={{ p: 3 }}>
        <Typography variant="h5" component="h1" gutterBottom>
          Mailwright operators
        </Typography>
        <Box component="form" onSubmit={submit} sx={{ display: 'grid', gap: 2 }}>
          <TextField
            id="operator-email"
            label="Email"
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            autoFocus
          />
          <TextField
            id="operator-password"
            label="Password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          {error && <Alert severity="error">{error}</Alert>}
          <Button type="submit" variant="contained" disabled={busy || !email || !password}>
            Sign in
          </Button>
        </Box>
      </Paper>
    </Container>
  );
}

/** Frame is the back-office's top bar (who is signed in, sign out) around a page. */
function Frame({ email, children }: { email: string; children: ReactNode }) {
  const navigate = useNavigate();
  const signOut = async () => {
    await operatorClient.POST('/logout').catch(() => undefined);
    navigate('/operator/login', { replace: true });
  };
  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default' }}>
      <AppBar position="static" color="default">
        <Toolbar sx={{ gap: 2, flexWrap: 'wrap' }}>
          <Typography component={RouterLink} to="/operator" variant="h6" sx={{ color: 'inherit', textDecoration: 'none', flexGrow: 1 }}>
            Mailwright operators
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {email}
          </Typography>
          <Button onClick={signOut}>Sign out</Button>
        </Toolbar>
      </AppBar>
      <Container maxWidth="lg" sx={{ py: 3 }}>
        {children}
      </Container>
    </Box>
  );
}

/** StateChips shows a project's sandbox and sending state. */
function StateChips({ p }: { p: ProjectRow }) {
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
const Scroll = ({ children }: { children: ReactNode }) => <Paper sx={{ overflowX: 'auto' }}>{children}</Paper>;

/** ProjectsTab lists projects, searched by company, project, admin email or id. */
function ProjectsTab() {
  const fail = useFailure();
  const [search, setSearch] = useState('');
  const [rows, setRows] = useState<ProjectRow[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    const timer = setTimeout(async () => {
      try {
        const page = ok(await operatorClient.GET('/projects', { params: { query: { search: search.trim() || undefined, limit: 50 } } }));
        if (!live) return;
        setRows(page.data);
        setTotal(page.total);
        setError('');
      } catch (err) {
        if (live) setError(fail(err));
      }
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [search, fail]);
  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      <TextField label="Search company, project or admin email" value={search} onChange={(e) => setSearch(e.target.value)} type="search" />
      {error && <Alert severity="error">Couldn’t load the projects: {error}</Alert>}
      {!rows && !error && <CircularProgress aria-label="Loading" />}
      {rows && !rows.length && <Typography color="text.secondary">No project matches “{search}”.</Typography>}
      {rows && rows.length > 0 && (
        <Scroll>
          <Table size="small" aria-label="Projects">
            <TableHead>
              <TableRow>
                <TableCell>Company / project</TableCell>
                <TableCell>Admins</TableCell>
                <TableCell>State</TableCell>
                <TableCell align="right">Sends this month</TableCell>
                <TableCell align="right">Suppressions</TableCell>
                <TableCell>Created</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((p) => (
                <TableRow key={p.project_id} hover data-testid={`project-${p.project_id}`}>
                  <TableCell>
                    <Link component={RouterLink} to={`/operator/projects/${p.project_id}`}>
                      {p.company_name} / {p.project_name}
                    </Link>
                  </TableCell>
                  <TableCell>{p.admin_emails.join(', ')}</TableCell>
                  <TableCell>
                    <StateChips p={p} />
                  </TableCell>
                  <TableCell align="right">{p.sends_this_month.toLocaleString()}</TableCell>
                  <TableCell align="right">{p.suppressions.toLocaleString()}</TableCell>
                  <TableCell>{when(p.created_at)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Scroll>
      )}
      {rows && total > rows.length && (
        <Typography variant="body2" color="text.secondary">
          Showing {rows.length} of {total.toLocaleString()}: search to narrow.
        </Typography>
      )}
    </Box>
  );
}

/** MessageCard shows one contact message or activation request. */
function MessageCard({ m }: { m: OperatorMessage }) {
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="operator-message">
      <Typography variant="subtitle2">
        {m.kind === 'activation' ? 'Activation request' : 'Contact message'} from {m.email}
        {m.name ? ` (${m.name})` : ''} · {when(m.created_at)}
      </Typography>
      {m.kind === 'activation' && (
        <Typography variant="body2" sx={{ mt: 0.5 }}>
          Expected monthly volume: <strong>{m.expected_monthly_volume?.toLocaleString() ?? '—'}</strong> · Sending domain:{' '}
          <strong>{m.sending_domain ?? '—'}</strong>
        </Typography>
      )}
      <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap', mt: 1 }}>
        {m.kind === 'activation' ? m.use_case : m.details}
      </Typography>
      {m.project_id && (
        <Link component={RouterLink} to={`/operator/projects/${m.project_id}`} variant="body2">
          Open the project
        </Link>
      )}
    </Paper>
  );
}

/**
 * useList loads one list of the operator gateway once: the rows (null while loading) and an error text; a 401 sends
 * the browser to the sign-in page.
 */
function useList<T>(load: () => Promise<{ data: T[] }>): { rows: T[] | null; error: string } {
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

const loadMessages = async () => ok(await operatorClient.GET('/messages', { params: { query: { limit: 100 } } }));
const loadAudit = async () => ok(await operatorClient.GET('/audit', { params: { query: { limit: 200 } } }));

/** MessagesTab lists the newest contact-form messages and activation requests. */
function MessagesTab() {
  const { rows, error } = useList(loadMessages);
  if (error) return <Alert severity="error">Couldn’t load the messages: {error}</Alert>;
  if (!rows) return <CircularProgress aria-label="Loading" />;
  if (!rows.length) return <Typography color="text.secondary">No messages yet.</Typography>;
  return (
    <Box sx={{ display: 'grid', gap: 1.5 }}>
      {rows.map((m) => (
        <MessageCard key={m.id} m={m} />
      ))}
    </Box>
  );
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
function AuditTable({ rows }: { rows: AuditEntry[] }) {
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

/** AuditTab shows the whole audit log (the newest 200 entries). */
function AuditTab() {
  const { rows, error } = useList(loadAudit);
  if (error) return <Alert severity="error">Couldn’t load the audit log: {error}</Alert>;
  return rows ? <AuditTable rows={rows} /> : <CircularProgress aria-label="Loading" />;
}

type OperatorTab = 'projects' | 'messages' | 'audit';

/** OperatorHome is the back-office's start page: projects, messages and the audit log in tabs. */
function OperatorHome() {
  const [tab, setTab] = useState<OperatorTab>('projects');
  return (
    <>
      <Tabs value={tab} onChange={(_e, v) => setTab(v)} sx={{ mb: 2 }} variant="scrollable" allowScrollButtonsMobile>
        <Tab value="projects" label="Companies and projects" />
        <Tab value="messages" label="Messages" />
        <Tab value="audit" label="Audit log" />
      </Tabs>
      {tab === 'projects' && <ProjectsTab />}
      {tab === 'messages' && <MessagesTab />}
      {tab === 'audit' && <AuditTab />}
    </>
  );
}

/** ProjectPage is one project: its state, activation request, actions, admins, personas and audit entries. */
function ProjectPage() {
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

/** Signed wraps a page: it loads the signed-in operator first and sends a visitor without a session to the sign-in page. */
function Signed({ children }: { children: ReactNode }) {
  const fail = useFailure();
  const [email, setEmail] = useState<string | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    operatorClient
      .GET('/me')
      .then(ok)
      .then(
        (r) => setEmail(r.email),
        (e) => setError(fail(e)),
      );
  }, [fail]);
  if (error) return <Alert severity="error">{error}</Alert>;
  if (!email) return <CircularProgress aria-label="Loading" sx={{ m: 4 }} />;
  return <Frame email={email}>{children}</Frame>;
}

/** OperatorApp routes /operator/*: sign-in, the start page and one project. */
export function OperatorApp() {
  return (
    <Routes>
      <Route path="login" element={<OperatorLogin />} />
      <Route
        path="projects/:projectId"
        element={
          <Signed>
            <ProjectPage />
          </Signed>
        }
      />
      <Route
        path="*"
        element={
          <Signed>
            <OperatorHome />
          </Signed>
        }
      />
    </Routes>
  );
}
