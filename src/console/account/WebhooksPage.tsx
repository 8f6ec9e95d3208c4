/**
 * Webhooks (/account/webhooks; openapi/webhooks.yaml): the project's endpoints — add one (URL, event
 * types, description), and for each: its signing secret, enable or disable it, send a test event, rotate the secret,
 * delete it, and its recent messages with their status, attempts, last answer and payload, each of which can be sent
 * again. A failing endpoint says since when; one disabled after 3 days of failures says why. The secret is shown in
 * full, with a copy button, right after the endpoint was added or its secret rotated (those answers carry it) and after
 * "Reveal" (revealWebhookSecret, which the project's notifications note); otherwise only its hint
 * (whsec_…last 4), as lists answer it.
 */
import { useCallback, useEffect, useState } from 'react';
import { useNotify } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import type { components } from '../../../generated/types/webhooks.gen';
import { callOperation } from '../data/gateway';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks';
import { CopyField } from './CopyField';
import { screensByName } from '../../../generated/screens.gen';
import { ManagedList } from '../resources/shared/ManagedList';
import { formatDateTime } from '../dates';

type Endpoint = components['schemas']['WebhookEndpoint'];
const SECRET_LABEL = 'Signing secret (Standard Webhooks)';
type Delivery = components['schemas']['WebhookDelivery'];

const when = (iso: string | null) => (iso ? formatDateTime(iso, { seconds: true }) : '—');
const STATUS_COLOR = { delivered: 'success', pending: 'warning', failed: 'error' } as const;

/** DeliveryDialog shows one message: its payload, its last answer, and "Send again". */
function DeliveryDialog({ delivery, onClose, onResent }: { delivery: Delivery; onClose: () => void; onResent: () => void }) {
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  const resend = async () => {
    setBusy(true);
    try {
      await callOperation('resendWebhookDelivery', { path: { id: delivery.id } });
      notify('The message is being sent again', { type: 'success' });
      onResent();
      onClose();
    } catch (e) {
      notify(`Couldn’t send it again: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" aria-labelledby="delivery-title">
      <DialogTitle id="delivery-title">
        {delivery.event_type} · {delivery.status}
      </DialogTitle>
      <DialogContent>
        <Typography variant="body2" gutterBottom>
          webhook-id <code>{delivery.id}</code> · {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'} · last {when(delivery.last_attempt_at)}
          {delivery.last_status_code !== null ? ` · HTTP ${delivery.last_status_code}` : ''}
          {delivery.last_latency_ms !== null ? ` · ${delivery.last_latency_ms} ms` : ''}
          {delivery.status === 'pending' && delivery.next_attempt_at ? ` · next try ${when(delivery.next_attempt_at)}` : ''}
        </Typography>
        {delivery.last_response && (
          <>
            <Typography variant="subtitle2">Last answer</Typography>
            <Box component="pre" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', bgcolor: 'action.hover', p: 1, fontSize: 12 }}>
              {delivery.last_response}
            </Box>
          </>
        )}
        <Typography variant="subtitle2">Payload</Typography>
        <Box
          component="pre"
          sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', bgcolor: 'action.hover', p: 1, fontSize: 12 }}
          data-testid="delivery-payload"
        >
          {JSON.stringify(delivery.payload, null, 2)}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button variant="contained" onClick={() => void resend()} disabled={busy}>
          Send again
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * SecretField shows an endpoint's signing secret: `secret` in full with a copy button and "Hide" when the page has it
 * (just added, rotated or revealed), else its hint with "Reveal", which asks the server (and is noted in Notifications).
 */
function SecretField({
  endpoint,
  secret,
  busy,
  onReveal,
  onHide,
}: {
  endpoint: Endpoint;
  secret: string | null;
  busy: boolean;
  onReveal: () => void;
  onHide: () => void;
}) {
  if (secret) {
    return (
      <Stack spacing={1}>
        <CopyField id={`secret-${endpoint.id}`} label={SECRET_LABEL} value={secret} />
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography variant="body2" color="text.secondary">
            Copy it into your receiver. Once you hide it or leave this page, only Reveal shows it again.
          </Typography>
          <Button size="small" onClick={onHide}>
            Hide
          </Button>
        </Stack>
      </Stack>
    );
  }
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <TextField
        id={`secret-hint-${endpoint.id}`}
        label={SECRET_LABEL}
        value={endpoint.secret_hint}
        fullWidth
        helperText="Hidden. Revealing it is noted in Account → Notifications."
        slotProps={{ htmlInput: { readOnly: true, style: { fontFamily: 'monospace' } } }}
      />
      <Button variant="outlined" disabled={busy} onClick={onReveal} aria-label={`Reveal the signing secret of ${endpoint.url}`}>
        Reveal
      </Button>
    </Stack>
  );
}

/** EndpointCard is one endpoint with its actions and its recent messages; `freshSecret` is its secret when just added. */
function EndpointCard({ endpoint, freshSecret, onChanged }: { endpoint: Endpoint; freshSecret?: string; onChanged: () => void }) {
  const notify = useNotify();
  const [secret, setSecret] = useState<string | null>(freshSecret ?? null);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [open, setOpen] = useState<Delivery | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [busy, setBusy] = useState(false);

  const loadDeliveries = useCallback(async () => {
    try {
      setDeliveries((await callOperation('listWebhookDeliveries', { path: { id: endpoint.id }, query: { limit: 20 } })).data);
    } catch (e) {
      notify(`Couldn’t load the messages: ${(e as Error).message}`, { type: 'error' });
    }
  }, [endpoint.id, notify]);
  useEffect(() => {
    void loadDeliveries();
  }, [loadDeliveries]);

  const act = async (what: string, run: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await run();
      notify(done, { type: 'success' });
      onChanged();
      await loadDeliveries();
    } catch (e) {
      notify(`Couldn’t ${what}: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
      setConfirmRotate(false);
    }
  };
  const path = { id: endpoint.id };
  const reveal = async () => {
    setBusy(true);
    try {
      setSecret((await callOperation('revealWebhookSecret', { path })).data.secret);
    } catch (e) {
      notify(`Couldn’t reveal the secret: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1, mb: 1 }}>
        <Typography variant="h6" component="h2" sx={{ wordBreak: 'break-all', mr: 1 }}>
          {endpoint.url}
        </Typography>
        <Chip size="small" color={endpoint.enabled ? 'success' : 'default'} label={endpoint.enabled ? 'Enabled' : 'Disabled'} />
      </Stack>
      {endpoint.description && <Typography color="text.secondary">{endpoint.description}</Typography>}
      <Typography variant="body2" sx={{ my: 1 }}>
        Listens to: {endpoint.event_types.join(', ')} · {endpoint.counts.delivered} delivered, {endpoint.counts.pending} waiting, {endpoint.counts.failed}{' '}
        failed
      </Typography>
      {endpoint.disabled_reason && <Alert severity="warning">Disabled: {endpoint.disabled_reason}. Its messages wait until you enable it again.</Alert>}
      {endpoint.enabled && endpoint.failing_since && (
        <Alert severity="error">Failing since {when(endpoint.failing_since)}: messages are retried for 3 days, then the endpoint is disabled.</Alert>
      )}
      <Box sx={{ my: 2, maxWidth: 640 }}>
        <SecretField endpoint={endpoint} secret={secret} busy={busy} onReveal={() => void reveal()} onHide={() => setSecret(null)} />
      </Box>
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
        <Button
          size="small"
          variant="outlined"
          disabled={busy}
          onClick={() => void act('send a test event', () => callOperation('sendWebhookTest', { path }), 'Test event queued')}
        >
          Send test event
        </Button>
        <Button
          size="small"
          variant="outlined"
          disabled={busy}
          onClick={() =>
            void act(
              endpoint.enabled ? 'disable the endpoint' : 'enable the endpoint',
              () => callOperation('updateWebhookEndpoint', { path, body: { enabled: !endpoint.enabled } }),
              endpoint.enabled ? 'Endpoint disabled' : 'Endpoint enabled',
            )
          }
        >
          {endpoint.enabled ? 'Disable' : 'Enable'}
        </Button>
        <Button size="small" variant="outlined" disabled={busy} onClick={() => setConfirmRotate(true)}>
          Rotate secret
        </Button>
        <Button size="small" onClick={() => void loadDeliveries()}>
          Refresh
        </Button>
      </Stack>
      <Typography variant="subtitle1" component="h3" sx={{ mt: 2 }}>
        Recent messages
      </Typography>
      {deliveries === null && <CircularProgress size={24} aria-label="Loading messages" />}
      {deliveries?.length === 0 && <Typography color="text.secondary">No messages yet. Send a test event, or wait for the events it listens to.</Typography>}
      {!!deliveries?.length && (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" aria-label={`Recent messages to ${endpoint.url}`}>
            <TableHead>
              <TableRow>
                <TableCell>Event</TableCell>
                <TableCell>Status</TableCell>
                <TableCell>Attempts</TableCell>
                <TableCell>Last answer</TableCell>
                <TableCell>Made</TableCell>
                <TableCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {deliveries.map((d) => (
                <TableRow key={d.id}>
                  <TableCell>{d.event_type}</TableCell>
                  <TableCell>
                    <Chip size="small" color={STATUS_COLOR[d.status]} label={d.status} />
                  </TableCell>
                  <TableCell>{d.attempts}</TableCell>
                  <TableCell>
                    {d.last_status_code !== null ? `HTTP ${d.last_status_code}` : (d.last_response?.slice(0, 40) ?? '—')}
                    {d.last_latency_ms !== null ? ` · ${d.last_latency_ms} ms` : ''}
                  </TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{when(d.created_at)}</TableCell>
                  <TableCell>
                    <Button size="small" onClick={() => setOpen(d)} aria-label={`Details of ${d.event_type} ${d.id}`}>
                      Details
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      )}
      {open && <DeliveryDialog delivery={open} onClose={() => setOpen(null)} onResent={() => void loadDeliveries()} />}
      <Dialog open={confirmRotate} onClose={() => setConfirmRotate(false)} aria-labelledby={`confirm-${endpoint.id}`}>
        <DialogTitle id={`confirm-${endpoint.id}`}>Rotate the signing secret?</DialogTitle>
        <DialogContent>
          <Typography>Messages sent from now on are signed with a new secret; update your receiver with it.</Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirmRotate(false)}>Cancel</Button>
          <Button
            variant="contained"
            disabled={busy}
            onClick={() =>
              void act(
                'rotate the secret',
                async () => setSecret((await callOperation('rotateWebhookSecret', { path })).data.secret),
                'Secret rotated: copy the new one into your receiver',
              )
            }
          >
            Rotate
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** The event types' labels (domain/webhooks.ts) as the form's checkboxes show them. */
const EVENT_TYPE_LABELS = Object.fromEntries(WEBHOOK_EVENT_TYPES.map((t) => [t.type, `${t.label} (${t.type})`]));
const UI_OVERRIDES = { event_types: { items: { 'ui:enumNames': EVENT_TYPE_LABELS } } };

/** WebhooksPage is /account/webhooks: the list, the add and edit forms and deleting come from listWebhookEndpoints' `x-screen`. */
export function WebhooksPage() {
  // The secrets of endpoints added on this page, by id: shown until hidden or the page is left.
  const [fresh, setFresh] = useState<Record<string, string>>({});
  return (
    <ManagedList
      definition={screensByName.webhooks}
      uiOverrides={UI_OVERRIDES}
      onCreated={(row) => setFresh((known) => ({ ...known, [row.id]: String(row.secret) }))}
      renderCard={(row, reload) => <EndpointCard endpoint={row as unknown as Endpoint} freshSecret={fresh[row.id]} onChanged={() => void reload()} />}
    />
  );
}
