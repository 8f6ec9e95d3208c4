/** The page-level toast's view (spec part 1 §8: bottom centre, auto-closing after 6 s); loaded with the first toast. */
import { Alert, Snackbar } from '@mui/material';
import { Themed } from './public/Themed';

/** A toast: its words, its kind, and a key that changes with each new toast. */
export interface Toast {
  message: string;
  type: 'success' | 'error' | 'info';
  key: number;
}

/** ToastView shows `toast` in a snackbar at the bottom centre for 6 s. */
export default function ToastView({ toast, onClose }: { toast: Toast; onClose: () => void }) {
  return (
    <Themed>
      <Snackbar
        key={toast.key}
        open
        autoHideDuration={6000}
        onClose={(_, reason) => reason !== 'clickaway' && onClose()}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      >
        <Alert severity={toast.type} variant="filled" onClose={onClose} role="alert">
          {toast.message}
        </Alert>
      </Snackbar>
    </Themed>
  );
}
