/**
 * A page-level toast for the public site (spec part 1 §8: bottom centre, 6 s), used where react-admin's notifications
 * are not mounted, e.g. the login page, and kept alive across the switch from the public site to the console.
 */
import { useSyncExternalStore } from 'react';
import { Alert, Snackbar } from '@mui/material';

interface Toast {
  message: string;
  type: 'success' | 'error' | 'info';
  key: number;
}

let current: Toast | null = null;
const listeners = new Set<() => void>();

function emit(): void {
  for (const l of listeners) l();
}

/** showToast shows a public-site toast (spec part 1 §8). */
export function showToast(message: string, type: Toast['type'] = 'info'): void {
  current = { message, type, key: Date.now() };
  emit();
}

function hide(): void {
  current = null;
  emit();
}

/** GlobalToast renders the current public-site toast at the bottom centre, closing after 6 s. */
export function GlobalToast() {
  const toast = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
  return (
    <Snackbar
      key={toast?.key}
      open={!!toast}
      autoHideDuration={6000}
      onClose={(_, reason) => reason !== 'clickaway' && hide()}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
    >
      <Alert severity={toast?.type ?? 'info'} variant="filled" onClose={hide} role="alert">
        {toast?.message}
      </Alert>
    </Snackbar>
  );
}
