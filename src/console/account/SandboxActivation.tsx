/**
 * The sandbox activation steps (spec part 1 §1 "New accounts start in a sandbox ... Activation steps: add a template,
 * create contacts, create a sender persona, and email support with the expected monthly volume"), shown on
 * Insights while the session's project is in the sandbox, each step with its state and a link to do it; the last step
 * is the activation request form. Activation itself is an operator's, from the back-office (/operator)
 * or `npm run admin -- activate`.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  TextField,
} from '@mui/material';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import RadioButtonUncheckedIcon from '@mui/icons-material/RadioButtonUnchecked';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../domain/sandbox';
import type { OperationResponse } from '../data/apiTypes';
import { callOperation } from '../data/gateway';
import { getSession, useSession } from '../session';

type Activation = OperationResponse<'getSandboxActivation'>;

/** Where each step is done. */
const STEP_LINKS: Record<Activation['steps'][number]['id'], { to: string; action: string }> = {
  template: { to: '/components/templates/new', action: 'Add a template' },
  contacts: { to: '/people/users/new', action: 'Add a contact' },
  sender_persona: { to: '/people/sender-personas/new', action: 'Create a persona' },
  support_email: { to: '/contact-us', action: 'Request activation' },
};

/** The activation request form's fields (POST {companyauthwrapper}/activation_request). */
interface RequestForm {
  volume: string;
  domain: string;
  useCase: string;
}

/**
 * ActivationRequestDialog asks for the expected monthly volume, the sending domain and the use case, and sends them
 * as the signed-in admin; the server's field errors are shown under their fields.
 */
function ActivationRequestDialog({ open, onClose, onSent }: { open: boolean; onClose: () => void; onSent: () => void }) {
  const [form, setForm] = useState<RequestForm>({ volume: '', domain: '', useCase: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const set = (k: keyof RequestForm) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const volume = Number(form.volume.replace(/[\s,]/g, ''));
    if (!Number.isInteger(volume) || volume < 1) {
      setErrors({ expected_monthly_volume: 'Enter a whole number of emails a month' });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      await callOperation('requestActivation', {
        body: { email: getSession()!.user.email, expected_monthly_volume: volume, sending_domain: form.domain.trim(), use_case: form.useCase.trim() },
      });
      onSent();
    } catch (e) {
      const byField: Record<string, string> = {};
      const listed = (e as { body?: { errors?: unknown } }).body?.errors;
      for (const line of Array.isArray(listed) ? (listed as string[]) : [(e as Error).message]) {
        const m = /^(\w+): (.*)$/.exec(line.trim());
        byField[m ? m[1] : 'form'] = m ? m[2] : line;
      }
      setErrors(byField);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="activation-request-title" fullWidth maxWidth="sm">
      <Box component="form" onSubmit={submit} noValidate>
        <DialogTitle id="activation-request-title">Request activation</DialogTitle>
        <DialogContent sx={{ display: 'grid', gap: 2, pt: '8px !important' }}>
          <TextField
            label="Expected emails a month"
            inputMode="numeric"
            value={form.volume}
            onChange={set('volume')}
            error={!!errors.expected_monthly_volume}
            helperText={errors.expected_monthly_volume}
            required
            autoFocus
          />
          <TextField
            label="Sending domain"
            placeholder="news.example.com"
            value={form.domain}
            onChange={set('domain')}
            error={!!errors.sending_domain}
            helperText={errors.sending_domain ?? 'The domain your emails come from.'}
            required
          />
          <TextField
            label="What you send, to whom, and how you got the addresses"
            multiline
            minRows={3}
            value={form.useCase}
            onChange={set('useCase')}
            error={!!errors.use_case}
            helperText={errors.use_case}
            required
          />
          {(errors.form || errors.email) && <Alert severity="error">{errors.form ?? errors.email}</Alert>}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={busy || !form.volume || !form.domain.trim() || !form.useCase.trim()}>
            Send request
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}

/**
 * SandboxActivation renders the steps for a sandboxed project; the last step is the activation request (a form here,
 * not a trip to the contact page), and once every step is done it says what happens next. When the project is active
 * (the session refreshed by the 15-second poll: accountStatus.ts) and has sent nothing yet, it offers the first
 * campaign instead.
 */
export function SandboxActivation() {
  const session = useSession();
  const [state, setState] = useState<Activation | null>(null);
  const [error, setError] = useState('');
  const [asking, setAsking] = useState(false);
  const [firstSend, setFirstSend] = useState(false);
  const inSandbox = !!session && !session.not_in_sandbox;

  const load = useCallback(() => {
    callOperation('getSandboxActivation').then(setState, (e: Error) => setError(e.message));
  }, []);
  useEffect(() => {
    if (inSandbox) load();
  }, [inSandbox, load]);
  useEffect(() => {
    if (!session?.not_in_sandbox) return;
    // Offered until the first blast exists: the project's first campaign.
    callOperation('countEmailBlasts').then(
      (r) => setFirstSend(r.num_email_blasts === 0),
      () => undefined,
    );
  }, [session?.not_in_sandbox]);

  if (session?.not_in_sandbox) {
    if (!firstSend) return null;
    return (
      <Alert
        severity="success"
        sx={{ mb: 2 }}
        data-testid="account-active"
        action={
          <Button color="inherit" variant="outlined" size="small" component={RouterLink} to="/email-send-wizard">
            Send your first campaign
          </Button>
        }
      >
        <AlertTitle>Your account is active</AlertTitle>
        You can now send to anyone.
      </Alert>
    );
  }
  if (!inSandbox || state?.not_in_sandbox) return null;
  const done = state?.steps.filter((s) => s.done).length ?? 0;
  const allDone = !!state && done === state.steps.length;
  return (
    <Alert severity="info" sx={{ mb: 2 }} data-testid="sandbox-activation">
      <AlertTitle>Your account is in the sandbox</AlertTitle>
      You can send only to {SIMULATOR_SUCCESS_ADDRESS} and to your own sender personas. Complete these steps and we will activate your account
      {state ? ` (${done} of ${state.steps.length} done)` : ''}.{error && <Box sx={{ mt: 1 }}>Couldn’t fetch the activation steps: {error}</Box>}
      {state && (
        <List dense aria-label="Activation steps">
          {state.steps.map((s) => (
            <ListItem key={s.id} data-testid={`activation-${s.id}`} data-done={s.done} sx={{ flexWrap: 'wrap', columnGap: 1 }}>
              <ListItemIcon sx={{ minWidth: 32 }}>
                {s.done ? <CheckCircleIcon color="success" titleAccess="Done" /> : <RadioButtonUncheckedIcon titleAccess="Not done yet" />}
              </ListItemIcon>
              <ListItemText sx={{ flex: '1 1 160px' }} primary={s.label} secondary={s.done ? 'Done' : (s.detail ?? 'To do')} />
              {/* The action sits after the text and wraps below it on a phone instead of covering it. */}
              {!s.done &&
                (s.id === 'support_email' ? (
                  <Button size="small" color="inherit" variant="outlined" onClick={() => setAsking(true)} sx={{ ml: 4 }}>
                    Request activation
                  </Button>
                ) : (
                  <Button size="small" color="inherit" variant="outlined" component={RouterLink} to={STEP_LINKS[s.id].to} sx={{ ml: 4 }}>
                    {STEP_LINKS[s.id].action}
                  </Button>
                ))}
            </ListItem>
          ))}
        </List>
      )}
      {state?.steps.find((s) => s.id === 'support_email')?.done && (
        <Box data-testid="activation-next">
          {allDone
            ? 'We have your request. We review it within one business day; you will get an email and a notice here when your account is active.'
            : 'We have your request. Finish the other steps: we review a request once they are done, and you will get an email and a notice here when your account is active.'}
          {allDone && (
            // While the review runs, the first campaign can already go to the simulator and the sender personas.
            <Box sx={{ mt: 1 }}>
              <Button color="inherit" variant="outlined" size="small" component={RouterLink} to="/email-send-wizard">
                Try your first campaign
              </Button>
            </Box>
          )}
        </Box>
      )}
      <ActivationRequestDialog
        open={asking}
        onClose={() => setAsking(false)}
        onSent={() => {
          setAsking(false);
          load();
        }}
      />
    </Alert>
  );
}
