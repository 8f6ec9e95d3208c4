/**
 * A list of ordered steps with their status (spec part 2 §4: waiting, in_progress, succeeded, failed, cancelled), each
 * with its icon and, for a failed one, its error under it. The list is a polite live region, so a screen reader
 * announces each step's new status (and a failure's error) as the steps run. Shared by the campaign archive dialog
 * and the send wizard's launch.
 */
import type { ReactNode } from 'react';
import { List, ListItem, ListItemIcon, ListItemText } from '@mui/material';
import HourglassEmptyIcon from '@mui/icons-material/HourglassEmpty';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import BlockIcon from '@mui/icons-material/Block';
import type { StepState, StepStatus } from '../../../domain/campaigns';

/** How each step status reads, with its icon. */
export const STEP_STATUS: Record<StepStatus, { text: string; icon: ReactNode }> = {
  waiting: { text: 'waiting', icon: <HourglassEmptyIcon color="disabled" /> },
  in_progress: { text: 'in progress', icon: <AutorenewIcon color="primary" /> },
  succeeded: { text: 'succeeded', icon: <CheckCircleIcon color="success" /> },
  failed: { text: 'failed', icon: <ErrorIcon color="error" /> },
  cancelled: { text: 'cancelled', icon: <BlockIcon color="disabled" /> },
};

/** StepList shows `steps` (key and label) with their `states` (waiting when a state is missing), as a list named `label`. */
export function StepList({ label, steps, states }: { label: string; steps: Array<{ key: string; label: string }>; states: StepState[] }) {
  return (
    <List aria-label={label} aria-live="polite" aria-relevant="additions text">
      {steps.map((step, i) => {
        const state = states[i] ?? { status: 'waiting' };
        return (
          <ListItem key={step.key} data-status={state.status} alignItems="flex-start">
            <ListItemIcon sx={{ minWidth: 36, mt: 0.5 }}>{STEP_STATUS[state.status].icon}</ListItemIcon>
            <ListItemText primary={`${step.label}: ${STEP_STATUS[state.status].text}`} secondary={state.error} slotProps={{ secondary: { color: 'error' } }} />
          </ListItem>
        );
      })}
    </List>
  );
}
