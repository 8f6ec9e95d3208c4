/**
 * 'Your team' (/account/team; spec part 1 §2 Team screen, §3 Company user, §6, §7 companyauthwrapper calls, §8 Team
 * texts): the project's admins, a form to add one (email typed as email, password, optional names) and
 * removal behind a confirmation modal. The earliest-created admin is the super-admin; the server refuses to remove
 * them and the screen says to contact support to change the email.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Confirm, useNotify } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import type { components } from '../../../generated/types/companyauthwrapper.gen';
import { callOperation } from '../data/gateway';
import { getSession } from '../session';

type CompanyUser = components['schemas']['CompanyUser'];

/** Team reads retry 5 times, 1 s apart (spec part 1 §7). */
const TEAM_READ_RETRY = { retries: 5, delayMs: 1000 };

/** teamAddErrorText words an add failure (spec part 1 §8): a cu_le_idx violation reads as the duplicate-email text. */
export function teamAddErrorText(message: string): string {
  return /cu_le_idx|already exists/.test(message) ? 'Another user with that email already exists' : message;
}

const EMPTY = { email: '', password: '', first_name: '', last_name: '' };

/** TeamPanel lists, adds and removes the project's admins; used by /account/team and /account/settings. */
export function TeamPanel() {
  const notify = useNotify();
  const session = getSession();
  const [members, setMembers] = useState<CompanyUser[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [form, setForm] = useState(EMPTY);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<CompanyUser | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    setLoadError('');
    try {
      const res = await callOperation(
        'listCompanyUsers',
        {
          query: { company_name: session?.company.name, project_name: session?.project.name },
        },
        TEAM_READ_RETRY,
      );
      setMembers(res.data);
    } catch (e) {
      const text = `Couldn’t fetch team members: ${(e as Error).message}`;
      setLoadError(text);
      notify(text, { type: 'error' });
    }
  }, [notify, session?.company.name, session?.project.name]);

  useEffect(() => {
    void load();
  }, [load]);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    if (adding) return;
    setAdding(true);
    try {
      await callOperation('addCompanyUser', {
        body: {
          company_user: { email: form.email.trim(), first_name: form.first_name.trim() || null, last_name: form.last_name.trim() || null },
          company_name: session?.company.name,
          project_name: session?.project.name,
          password: form.password,
          added_by: session?.user.email ?? null,
        },
      });
      notify('Successfully added team member', { type: 'success' });
      setForm(EMPTY);
      await load();
    } catch (e) {
      notify(`Couldn’t add team member: ${teamAddErrorText((e as Error).message)}`, { type: 'error' });
    } finally {
      setAdding(false);
    }
  };

  const remove = async () => {
    if (!removing) return;
    setBusy(true);
    try {
      await callOperation('removeCompanyUser', { body: { company_user: { id: removing.id } } });
      notify('Successfully removed team member', { type: 'success' });
      await load();
    } catch (e) {
      notify(`Couldn’t remove team member: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
      setRemoving(null);
    }
  };

  return (
    <Box>
      {loadError && (
        <Alert
          severity="error"
          action={
            <Button color="inherit" onClick={() => void load()}>
              Retry
            </Button>
          }
          sx={{ mb: 2 }}
        >
          {loadError}
        </Alert>
      )}
      {!members && !loadError && <CircularProgress aria-label="Loading team members" />}
      {members && (
        <Table size="small" aria-label="Team members" sx={{ mb: 3 }}>
          <TableHead>
            <TableRow>
              <TableCell>Email</TableCell>
              <TableCell>Name</TableCell>
              <TableCell>Added</TableCell>
              <TableCell>Added by</TableCell>
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {members.map((m) => (
              <TableRow key={m.id} data-testid={`team-row-${m.email}`}>
                <TableCell>
                  {m.email}
                  {m.super_admin && <Chip size="small" label="Super-admin" sx={{ ml: 1 }} />}
                  {m.super_admin && (
                    <Typography variant="body2" color="text.secondary">
                      The super-admin cannot be removed. Contact support to change this email.
                    </Typography>
                  )}
                </TableCell>
                <TableCell>{[m.first_name, m.last_name].filter(Boolean).join(' ')}</TableCell>
                <TableCell>{new Date(m.created_at).toISOString().slice(0, 10)}</TableCell>
                <TableCell>{String(m.json.addedBy ?? '')}</TableCell>
                <TableCell align="right">
                  {/* The super-admin cannot be removed (said beside the address), so no Remove is offered. */}
                  {!m.super_admin && (
                    <Button color="error" size="small" onClick={() => setRemoving(m)} aria-label={`Remove ${m.email}`}>
                      Remove
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <Typography variant="h6" component="h2" gutterBottom>
        Add an admin
      </Typography>
      <Box component="form" onSubmit={add} sx={{ display: 'grid', gap: 2, gridTemplateColumns: { sm: '1fr 1fr' }, maxWidth: 640 }}>
        <TextField id="team-email" label="Email" type="email" required value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />
        <TextField
          id="team-password"
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          value={form.password}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
        />
        <TextField
          id="team-first-name"
          label="First name (optional)"
          value={form.first_name}
          onChange={(e) => setForm({ ...form, first_name: e.target.value })}
        />
        <TextField id="team-last-name" label="Last name (optional)" value={form.last_name} onChange={(e) => setForm({ ...form, last_name: e.target.value })} />
        <Box>
          <Button type="submit" variant="contained" disabled={adding || !form.email.trim() || !form.password}>
            Add admin
          </Button>
        </Box>
      </Box>
      <Confirm
        isOpen={!!removing}
        loading={busy}
        title="Remove team member"
        content={removing ? `Remove ${removing.email} from the team? They will no longer be able to log in.` : ''}
        confirm="Remove"
        onConfirm={() => void remove()}
        onClose={() => setRemoving(null)}
      />
    </Box>
  );
}

/** TeamPage is /account/team. */
export function TeamPage() {
  return (
    <Card>
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          Your team
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          Every member is an admin of this project. Any admin can add another; the earliest-created admin is the super-admin.
        </Typography>
        <TeamPanel />
      </CardContent>
    </Card>
  );
}
