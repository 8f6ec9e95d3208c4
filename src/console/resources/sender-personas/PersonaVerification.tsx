/**
 * A sender persona's verification status, where the user sees the persona: on the list, "Verified" or
 * "Not confirmed yet" with a button that emails the link again; on the edit page, what the status means for sending
 * and the same button. The link is sent by POST {senderpersonawrapper}/sender_personas/{id}/verification.
 */
import { useState } from 'react';
import { useGetOne, useNotify, useRefresh, type RaRecord } from 'react-admin';
import { useParams } from 'react-router-dom';
import { Alert, AlertTitle, Button, Stack, Typography } from '@mui/material';
import CheckIcon from '@mui/icons-material/Check';
import { callOperation } from '../../data/gateway';
import { RETRY } from '../../retry';

/** useResend returns a function that emails persona `id` at `email` its verification link, with toasts, and whether it is sending. */
function useResend(): [(id: string, email: string) => Promise<void>, boolean] {
  const notify = useNotify();
  const refresh = useRefresh();
  const [sending, setSending] = useState(false);
  const resend = async (id: string, email: string) => {
    setSending(true);
    try {
      const res = await callOperation('resendPersonaVerification', { path: { id } }, RETRY.write);
      if (res.errors.length) notify(`Couldn't send the verification email: ${res.errors.join('; ')}`, { type: 'error' });
      else notify(`Verification email sent to ${email}: open it and click the link.`, { type: 'success' });
    } catch (err) {
      notify(`Couldn't send the verification email: ${(err as Error).message}`, { type: 'error' });
      refresh();
    } finally {
      setSending(false);
    }
  };
  return [resend, sending];
}

/** PersonaStatusCell is the list's Verified cell of `record`. */
export function PersonaStatusCell({ record }: { record: RaRecord }) {
  const [resend, sending] = useResend();
  if (record.verified_at)
    return (
      <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center', color: 'success.dark' }}>
        <CheckIcon fontSize="small" aria-hidden />
        <Typography variant="body2">Verified</Typography>
      </Stack>
    );
  return (
    <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
      <Typography
        variant="body2"
        sx={{ color: 'text.primary', fontWeight: 'bold' }}
        title="Emails from this persona are blocked until its address follows the link we emailed to it"
      >
        Not confirmed yet: cannot send
      </Typography>
      <Button
        size="small"
        variant="outlined"
        disabled={sending}
        onClick={(e) => {
          e.stopPropagation();
          void resend(String(record.id), String(record.email));
        }}
        aria-label={`Resend link to ${String(record.email)}`}
      >
        {sending ? 'Sending…' : 'Resend link'}
      </Button>
    </Stack>
  );
}

/** PersonaStatus is the edit page's status of the persona being edited (nothing on the create page). */
export function PersonaStatus() {
  const { id } = useParams();
  const { data: record } = useGetOne('sender-personas', { id: id ?? '' }, { enabled: !!id });
  const [resend, sending] = useResend();
  if (!record?.id) return null;
  if (record.verified_at)
    return (
      <Alert severity="success" sx={{ mt: 2 }} data-testid="persona-status">
        <AlertTitle>Verified</AlertTitle>
        {String(record.email)} confirmed it on {String(record.verified_at).slice(0, 10)}: emails from this persona can be sent. Changing the email address needs
        a new confirmation.
      </Alert>
    );
  return (
    <Alert
      severity="warning"
      sx={{ mt: 2 }}
      data-testid="persona-status"
      action={
        <Button color="inherit" size="small" variant="outlined" disabled={sending} onClick={() => void resend(String(record.id), String(record.email))}>
          {sending ? 'Sending…' : 'Resend link'}
        </Button>
      }
    >
      <AlertTitle>Not confirmed yet</AlertTitle>
      We emailed a confirmation link to {String(record.email)}. Emails from this persona are blocked until someone with access to that inbox clicks it. No
      email? Check the spam folder, or resend the link.
    </Alert>
  );
}
