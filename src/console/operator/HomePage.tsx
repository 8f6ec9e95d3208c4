/** The back-office's start page: companies and projects (search by company, project or admin email), the contact-form messages and the audit log, in tabs. */
import { useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Alert, Box, CircularProgress, Link, Paper, Tab, Table, TableBody, TableCell, TableHead, TableRow, Tabs, TextField, Typography } from '@mui/material';
import { ok, operatorClient, type OperatorMessage, type ProjectRow } from './operatorApi';
import { when, useFailure, StateChips, Scroll, useList, AuditTable } from './common';

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
export function MessageCard({ m }: { m: OperatorMessage }) {
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

/** AuditTab shows the whole audit log (the newest 200 entries). */
function AuditTab() {
  const { rows, error } = useList(loadAudit);
  if (error) return <Alert severity="error">Couldn’t load the audit log: {error}</Alert>;
  return rows ? <AuditTable rows={rows} /> : <CircularProgress aria-label="Loading" />;
}

type OperatorTab = 'projects' | 'messages' | 'audit';

/** OperatorHome is the back-office's start page: projects, messages and the audit log in tabs. */
export function OperatorHome() {
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
