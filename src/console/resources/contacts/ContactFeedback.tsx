/**
 * A contact's bounces and complaints on /people/users/edit/{id}: each with its date, what it means (a hard bounce
 * suppresses the address, a soft one is counted, a block names the sender's problem, a complaint suppresses and
 * unsubscribes), the receiver's own words and where it came from (the inbound receiver, the bounce mailbox, a provider's
 * webhook, SES, the relay's answer). Read from GET {event}/all_events (the raw events), newest first, the last 50.
 */
import { useEffect, useState } from 'react';
import { useGetOne } from 'react-admin';
import { useParams } from 'react-router-dom';
import { Alert, Card, CardContent, Chip, CircularProgress, List, ListItem, ListItemText, Typography } from '@mui/material';
import { callOperation, RETRY } from '../../data/gateway';
import { BOUNCE, COMPLAINT, feedbackKind, obj, receiverWords, SOURCES, type FeedbackEvent } from './feedbackEvents';
import { formatDateTime } from '../../dates';

const LIMIT = 50;

/** ContactFeedback lists the bounces and complaints about the contact being edited. */
export function ContactFeedback() {
  const { id } = useParams();
  const { data: contact } = useGetOne('contacts', { id: id ?? '' }, { enabled: Boolean(id) });
  const email = (contact?.email as string | undefined)?.toLowerCase();
  const [events, setEvents] = useState<FeedbackEvent[] | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    if (!email) return;
    let live = true;
    setEvents(null);
    setError('');
    callOperation(
      'listEvents',
      { query: { search_field: 'email', search_value: email, include_events: `${BOUNCE},${COMPLAINT}`, include_system_events: true, limit: LIMIT } },
      RETRY.read,
    )
      .then((r) => {
        // The search matches a part of the address: only this address's own events are shown.
        if (live) setEvents((r.data as FeedbackEvent[]).filter((e) => e.email?.toLowerCase() === email));
      })
      .catch((e: Error) => {
        if (live) setError(e.message);
      });
    return () => {
      live = false;
    };
  }, [email]);

  if (!id) return null;
  const soft = events?.filter((e) => feedbackKind(e).label === 'Soft bounce').length ?? 0;
  return (
    <Card variant="outlined" sx={{ mt: 2 }} component="section" aria-label="Bounces and complaints">
      <CardContent>
        <Typography variant="h6" component="h2">
          Bounces and complaints
        </Typography>
        {error && <Alert severity="error">Unable to load data: {error}</Alert>}
        {!error && !events && <CircularProgress size={24} aria-label="Loading bounces and complaints" />}
        {events && events.length === 0 && <Typography sx={{ mt: 1 }}>No bounces or complaints for this address.</Typography>}
        {events && soft > 0 && (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
            {soft} soft {soft === 1 ? 'bounce' : 'bounces'} listed: the address is suppressed after several in a row with no open or click between them.
          </Typography>
        )}
        {events && events.length > 0 && (
          <List dense>
            {events.map((e) => {
              const kind = feedbackKind(e);
              const source = SOURCES[String(obj(e.json).source ?? '')] ?? '';
              const words = receiverWords(e);
              return (
                <ListItem key={e.id} disableGutters sx={{ alignItems: 'flex-start', gap: 1 }}>
                  <Chip size="small" color={kind.color} label={kind.label} sx={{ mt: 0.5 }} />
                  <ListItemText
                    primary={`${formatDateTime(e.emitted_at)}${source ? ` · ${source}` : ''}`}
                    secondary={words || undefined}
                    slotProps={{ secondary: { sx: { fontFamily: 'monospace', wordBreak: 'break-word' } } }}
                  />
                </ListItem>
              );
            })}
          </List>
        )}
      </CardContent>
    </Card>
  );
}
