/**
 * The email viewer at /email/{location} (spec part 1 §2, §7, §8): the stored copy of a sent email, exactly as sent,
 * inside a sandboxed iframe so no script in it can run (VIEWER_SANDBOX); viewing it never counts as an open;
 * a spinner while loading, 'No email body found' when absent.
 */
import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { useDataProvider, useNotify } from 'react-admin';
import { Alert, Box, CircularProgress, Paper, Typography } from '@mui/material';
import type { components } from '../../../generated/types/reporting.gen';
import type { AppDataProvider } from '../data/dataProvider';

type SendResult = components['schemas']['EmailSendResult'];

/**
 * The sandbox of every iframe the console shows an email in (the viewer, the template previews): scripts, forms,
 * pop-ups and top navigation stay off; the document keeps the console's origin so its requests to the tracking
 * endpoints carry the console as referrer and are not counted. Never add allow-scripts to it.
 */
export const VIEWER_SANDBOX = 'allow-same-origin';

/** EmailViewer fetches `send_results[0]` for the route's location and shows its headers and body. */
export function EmailViewer() {
  const { location = '' } = useParams();
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const [state, setState] = useState<{ loading: boolean; result?: SendResult; error?: string }>({ loading: true });

  useEffect(() => {
    let live = true;
    setState({ loading: true });
    dataProvider
      .callGateway('getEmailSendResults', { query: { locations: location } })
      .then((body) => live && setState({ loading: false, result: body.send_results?.[0] }))
      .catch((error: Error) => {
        if (!live) return;
        notify(`Couldn't fetch email-send results: ${error.message}`, { type: 'error' });
        setState({ loading: false, error: error.message });
      });
    return () => {
      live = false;
    };
  }, [dataProvider, location, notify]);

  if (state.loading) {
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', p: 6 }}>
        <CircularProgress aria-label="Loading email" />
      </Box>
    );
  }
  const payload = state.result?.mailer_payload;
  return (
    <Box sx={{ p: 2, maxWidth: 1000, mx: 'auto' }}>
      {state.error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          Couldn't fetch email-send results: {state.error}
        </Alert>
      )}
      {payload && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
          <Typography component="div">
            <strong>Subject:</strong> <span data-testid="email-subject">{payload.subject}</span>
          </Typography>
          <Typography component="div">
            <strong>From:</strong> {payload.from}
          </Typography>
          <Typography component="div">
            <strong>To:</strong> {payload.to}
          </Typography>
          {payload.sent_at && (
            <Typography component="div">
              <strong>Sent:</strong> {payload.sent_at}
            </Typography>
          )}
        </Paper>
      )}
      {payload?.body ? (
        <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
          {/* Sandboxed: no script, form or pop-up of the email runs. allow-same-origin (without allow-scripts, so nothing can
              use it) gives the copy the console's origin, so the loads of its tracking pixel carry the console as
              referrer and the tracking endpoints record nothing (docs/architecture.md §14). */}
          <iframe title="Email body" sandbox={VIEWER_SANDBOX} srcDoc={payload.body} style={{ width: '100%', height: '80vh', border: 0, background: '#fff' }} />
        </Paper>
      ) : (
        <Typography variant="h6">No email body found</Typography>
      )}
    </Box>
  );
}
