/**
 * The sandbox activation steps (spec part 1 §1 "New accounts start in a sandbox ... Activation steps: add a template,
 * create contacts, create a sender persona, and email support with the expected monthly volume"; issue 7 §5), shown on
 * Insights while the session's project is in the sandbox, each step with its state and a link to do it. Activation
 * itself is an operator's `npm run admin -- activate`.
 */
import { useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Alert, AlertTitle, Box, Button, List, ListItem, ListItemIcon, ListItemText } from '@mui/material';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import RadioButtonUncheckedIcon from '@mui/icons-material/RadioButtonUnchecked';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../domain/sandbox';
import type { OperationResponse } from '../data/apiTypes';
import { callOperation } from '../data/gateway';
import { getSession } from '../session';

type Activation = OperationResponse<'getSandboxActivation'>;

/** Where each step is done. */
const STEP_LINKS: Record<Activation['steps'][number]['id'], { to: string; action: string }> = {
  template: { to: '/components/templates/new', action: 'Add a template' },
  contacts: { to: '/people/users/new', action: 'Add a contact' },
  sender_persona: { to: '/people/sender-personas/new', action: 'Create a persona' },
  support_email: { to: '/contact-us', action: 'Email support' },
};

/** SandboxActivation renders the steps for a sandboxed project, and nothing once the project is activated. */
export function SandboxActivation() {
  const session = getSession();
  const [state, setState] = useState<Activation | null>(null);
  const [error, setError] = useState('');
  const inSandbox = session && !session.not_in_sandbox;

  useEffect(() => {
    if (!inSandbox) return;
    callOperation('getSandboxActivation').then(setState, (e: Error) => setError(e.message));
  }, [inSandbox]);

  if (!inSandbox || state?.not_in_sandbox) return null;
  const done = state?.steps.filter((s) => s.done).length ?? 0;
  return (
    <Alert severity="info" sx={{ mb: 2 }} data-testid="sandbox-activation">
      <AlertTitle>Your account is in the sandbox</AlertTitle>
      You can send only to {SIMULATOR_SUCCESS_ADDRESS} and to your own sender personas. Complete these steps and we will activate your account
      {state ? ` (${done} of ${state.steps.length} done)` : ''}.{error && <Box sx={{ mt: 1 }}>Couldn’t fetch the activation steps: {error}</Box>}
      {state && (
        <List dense aria-label="Activation steps">
          {state.steps.map((s) => (
            <ListItem
              key={s.id}
              data-testid={`activation-${s.id}`}
              data-done={s.done}
              secondaryAction={
                !s.done && (
                  <Button size="small" color="inherit" variant="outlined" component={RouterLink} to={STEP_LINKS[s.id].to}>
                    {STEP_LINKS[s.id].action}
                  </Button>
                )
              }
            >
              <ListItemIcon sx={{ minWidth: 32 }}>
                {s.done ? <CheckCircleIcon color="success" titleAccess="Done" /> : <RadioButtonUncheckedIcon titleAccess="Not done yet" />}
              </ListItemIcon>
              <ListItemText primary={s.label} secondary={s.done ? 'Done' : 'To do'} />
            </ListItem>
          ))}
        </List>
      )}
    </Alert>
  );
}
