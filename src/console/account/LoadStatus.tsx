/**
 * LoadStatus is what a page shows about a list it loads itself (Domains, Webhooks, Topics, Subscribe Forms): the load
 * error with Retry, a spinner while nothing has come yet, and the empty text when the list came back empty. Nothing
 * once there are rows.
 */
import { Alert, Button, CircularProgress, Typography } from '@mui/material';

/** LoadStatus renders the error, loading and empty states of `rows` (null: not loaded yet). */
export function LoadStatus({
  rows,
  error,
  onRetry,
  loadingLabel,
  emptyText,
}: {
  rows: readonly unknown[] | null;
  error: string;
  onRetry: () => void;
  loadingLabel: string;
  emptyText: string;
}) {
  return (
    <>
      {error && (
        <Alert
          severity="error"
          action={
            <Button color="inherit" onClick={onRetry}>
              Retry
            </Button>
          }
        >
          {error}
        </Alert>
      )}
      {!rows && !error && <CircularProgress aria-label={loadingLabel} />}
      {rows?.length === 0 && <Typography color="text.secondary">{emptyText}</Typography>}
    </>
  );
}
