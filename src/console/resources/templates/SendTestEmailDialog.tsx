/**
 * The 'Send test email' modal of the template editor (spec part 2 §2 Templates, §5 Test email; part 1 §7
 * `POST {event}/emit_send_single_email_event`, §8 Single email toasts). The recipient type toggles between 'simulator'
 * (the simulator's success address) and 'sender persona' (one of the project's personas); an activated account may
 * also type any address. The sender is a persona. The email is sent with is_test_email, so it is not tracked.
 */
import { useEffect, useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField, ToggleButton, ToggleButtonGroup } from '@mui/material';
import { useNotify } from 'react-admin';
import type { Schema } from '../../data/apiTypes';
import { callOperation } from '../../data/gateway';
import { useSession } from '../../session';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox';
import { checkEmail } from '../../../domain/validation';
import { normaliseErrorText } from '../../../domain/errors';

type Persona = Schema<'senderpersonawrapper', 'SenderPersona'>;

type RecipientType = 'simulator' | 'sender persona' | 'address';

export interface SendTestEmailDialogProps {
  open: boolean;
  onClose: () => void;
  /** The saved template to send; the dialog explains that the template must be saved first when absent. */
  templateId?: string;
  templateType?: string;
}

/** SendTestEmailDialog sends one test email of a saved template and reports the outcome in a toast. */
export function SendTestEmailDialog({ open, onClose, templateId, templateType }: SendTestEmailDialogProps) {
  const notify = useNotify();
  const session = useSession();
  const [personas, setPersonas] = useState<Persona[] | undefined>();
  const [type, setType] = useState<RecipientType>('simulator');
  const [toPersona, setToPersona] = useState('');
  const [address, setAddress] = useState('');
  const [from, setFrom] = useState('');
  const [sending, setSending] = useState(false);

  useEffect(() => {
    if (!open || personas) return;
    callOperation('listSenderPersonas', { query: { limit: 100 } })
      .then((r) => {
        setPersonas(r.data);
        if (r.data[0]) {
          setFrom(r.data[0].id);
          setToPersona(r.data[0].email);
        }
      })
      .catch((err) => {
        setPersonas([]);
        notify(`Couldn’t send email: ${normaliseErrorText(err)}`, { type: 'error' });
      });
  }, [open, personas, notify]);

  const sender = personas?.find((p) => p.id === from);
  const to = type === 'simulator' ? SIMULATOR_SUCCESS_ADDRESS : type === 'sender persona' ? toPersona : address.trim();
  const problem = !templateId
    ? 'missing template: save the template first'
    : !from
      ? 'missing sender: create a sender persona first'
      : !to
        ? 'missing recipient'
        : type === 'address'
          ? checkEmail(to)
          : undefined;

  const send = async () => {
    if (problem) return;
    setSending(true);
    try {
      await callOperation('sendSingleEmail', {
        body: {
          mailer_payload: {
            is_test_email: true,
            template_id: templateId,
            template_type: templateType ?? null,
            from: { user_id: from },
            to: [{ email: to }],
          },
        },
      });
      notify(`Successfully sent email to ${to}`, { type: 'success' });
      onClose();
    } catch (err) {
      notify(`Couldn’t send email: ${normaliseErrorText(err)}`, { type: 'error' });
    } finally {
      setSending(false);
    }
  };

  const name = (p: Persona) => `${[p.first_name, p.last_name].filter(Boolean).join(' ')} <${p.email}>`;
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="send-test-email-title" fullWidth maxWidth="sm">
      <DialogTitle id="send-test-email-title">Send test email</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <ToggleButtonGroup exclusive size="small" value={type} onChange={(_e, v: RecipientType | null) => v && setType(v)} aria-label="Recipient type">
            <ToggleButton value="simulator">simulator</ToggleButton>
            <ToggleButton value="sender persona">sender persona</ToggleButton>
            {session?.not_in_sandbox ? <ToggleButton value="address">address</ToggleButton> : null}
          </ToggleButtonGroup>
          {type === 'simulator' ? (
            <TextField
              label="To"
              value={SIMULATOR_SUCCESS_ADDRESS}
              slotProps={{ input: { readOnly: true } }}
              helperText="Delivered by the mailbox simulator, never to a real inbox"
            />
          ) : null}
          {type === 'sender persona' ? (
            <TextField select label="To" value={toPersona} onChange={(e) => setToPersona(e.target.value)}>
              {(personas ?? []).map((p) => (
                <MenuItem key={p.id} value={p.email}>
                  {name(p)}
                </MenuItem>
              ))}
            </TextField>
          ) : null}
          {type === 'address' ? (
            <TextField
              label="To"
              type="email"
              value={address}
              onChange={(e) => setAddress(e.target.value)}
              error={!!address && !!checkEmail(address)}
              helperText={address ? checkEmail(address) : undefined}
            />
          ) : null}
          <TextField
            select
            label="From"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            disabled={!personas?.length}
            helperText={
              sender && !sender.verified_at
                ? `${sender.email} has not confirmed its verification email yet: the email will not be sent until it does`
                : undefined
            }
          >
            {(personas ?? []).map((p) => (
              <MenuItem key={p.id} value={p.id}>
                {name(p)}
                {p.verified_at ? '' : ' (not verified)'}
              </MenuItem>
            ))}
          </TextField>
          {!session?.not_in_sandbox ? <span>In the sandbox a test email may only go to the simulator or to one of your sender personas.</span> : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" onClick={send} disabled={!!problem || sending} title={problem}>
          Send
        </Button>
      </DialogActions>
    </Dialog>
  );
}
