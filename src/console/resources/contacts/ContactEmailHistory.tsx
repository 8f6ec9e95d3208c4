/**
 * A contact's email history on /people/users/edit/{id} (spec part 2 §2 Contacts, §7 Other: email send results):
 * the emails successfully sent to the contact's address, newest first, 10 at a time, from
 * GET {reporting}/email_send_results?email=; each opens the stored copy in the email viewer (/email/{location}).
 */
import { useEffect, useState } from 'react';
import { useGetOne } from 'react-admin';
import { useParams } from 'react-router-dom';
import { Alert, Button, Card, CardContent, CircularProgress, Link, List, ListItem, ListItemText, Stack, Typography } from '@mui/material';
import type { Schema } from '../../data/apiTypes';
import { callOperation, RETRY } from '../../data/gateway';
import { formatDateTime } from '../../dates';

const PAGE = 10;

/** ContactEmailHistory lists the emails sent to the contact being edited. */
export function ContactEmailHistory() {
  const { id } = useParams();
  const { data: contact } = useGetOne('contacts', { id: id ?? '' }, { enabled: Boolean(id) });
  const email = contact?.email as string | undefined;
  const [page, setPage] = useState(0);
  const [state, setState] = useState<{ results: Array<Schema<'reporting', 'EmailSendResult'>>; total: number } | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    if (!email) return;
    let live = true;
    setState(null);
    setError('');
    callOperation(
      'getEmailSendResults',
      { query: { email, limit: PAGE, offset: page * PAGE } },
      RETRY.read,
      // total is answered whenever email is given (openapi/reporting.yaml), which it always is here.
    )
      .then((r) => {
        if (live) setState({ results: r.send_results, total: r.total ?? r.send_results.length });
      })
      .catch((e: Error) => {
        if (live) setError(e.message);
      });
    return () => {
      live = false;
    };
  }, [email, page]);

  if (!id) return null;
  return (
    <Card variant="outlined" sx={{ mt: 2 }} component="section" aria-label="Email history">
      <CardContent>
        <Typography variant="h6" component="h2">
          Email history
        </Typography>
        {error && <Alert severity="error">Unable to load data: {error}</Alert>}
        {!error && !state && <CircularProgress size={24} aria-label="Loading email history" />}
        {state && state.total === 0 && <Typography sx={{ mt: 1 }}>No emails have been sent to this contact yet.</Typography>}
        {state && state.total > 0 && (
          <>
            <List dense>
              {state.results.map((r) => (
                <ListItem key={r.location} disableGutters>
                  <ListItemText
                    primary={
                      <Link href={`/email/${encodeURIComponent(r.location)}`} target="_blank" rel="noopener">
                        {r.mailer_payload.subject || '(no subject)'}
                      </Link>
                    }
                    secondary={`${formatDateTime(r.mailer_payload.sent_at)} · from ${r.mailer_payload.from}`}
                  />
                </ListItem>
              ))}
            </List>
            {state.total > PAGE && (
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                <Button size="small" disabled={page === 0} onClick={() => setPage(page - 1)}>
                  Newer
                </Button>
                <Typography variant="body2">
                  {page * PAGE + 1}–{Math.min(state.total, (page + 1) * PAGE)} of {state.total}
                </Typography>
                <Button size="small" disabled={(page + 1) * PAGE >= state.total} onClick={() => setPage(page + 1)}>
                  Older
                </Button>
              </Stack>
            )}
          </>
        )}
      </CardContent>
    </Card>
  );
}
