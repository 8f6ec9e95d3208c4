/**
 * The Integrations page's "Bounces and complaints from your email provider" card: for a customer who sends through
 * Postmark, Mailgun, SendGrid, Brevo or Resend, the webhook URL to give the provider for its bounce and complaint
 * events, and the secret the provider's requests must prove (GET/PUT/DELETE {event}/feedback_integrations). A secret
 * is never shown again once saved, only its last 4 characters.
 */
import { useCallback, useEffect, useState } from 'react';
import { useNotify } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, Chip, CircularProgress, Stack, TextField, Typography } from '@mui/material';
import type { Schema } from '../data/apiTypes';
import { callOperation, RETRY } from '../data/gateway';
import { CopyField } from './CopyField';

type Integration = Schema<'event', 'FeedbackIntegration'>;
type Provider = Integration['provider'];

/** Each provider: its name, where its webhook is set up, and what its secret is. */
const PROVIDERS: Array<{ id: Provider; name: string; secret: string; help: string }> = [
  {
    id: 'postmark',
    name: 'Postmark',
    secret: 'User name and password (user:password)',
    help: 'Server → Webhooks → Add webhook: Bounce and Spam Complaint. Choose a user name and password, save them here, and put them in the URL you give Postmark: https://user:password@… ',
  },
  {
    id: 'mailgun',
    name: 'Mailgun',
    secret: 'HTTP webhook signing key',
    help: 'Sending → Webhooks: add the URL for Permanent failure, Temporary failure and Spam complaints. The signing key is on the same page.',
  },
  {
    id: 'sendgrid',
    name: 'SendGrid',
    secret: 'Verification key (public key)',
    help: 'Settings → Mail Settings → Event Webhook: the URL, the Bounced, Dropped and Spam Report events, and Signed Event Webhook on; paste its verification key.',
  },
  {
    id: 'brevo',
    name: 'Brevo',
    secret: 'Token',
    help: 'Transactional → Settings → Webhook: the URL with hard bounce, soft bounce and complaint events, and token authentication with a token you choose.',
  },
  {
    id: 'resend',
    name: 'Resend',
    secret: 'Signing secret (whsec_…)',
    help: 'Webhooks → Add endpoint: the URL with email.bounced and email.complained; paste the endpoint’s signing secret.',
  },
];

/** One provider's row: its status, URL and a field to set or replace its secret. */
function ProviderRow({ p, integration, onChange }: { p: (typeof PROVIDERS)[number]; integration?: Integration; onChange: () => Promise<void> }) {
  const notify = useNotify();
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    try {
      await callOperation('setFeedbackIntegration', { path: { provider: p.id }, body: { secret: secret.trim() } });
      notify(`${p.name} webhooks set up: give ${p.name} the URL shown`, { type: 'success' });
      setSecret('');
      await onChange();
    } catch (e) {
      notify(`Couldn’t save the ${p.name} secret: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setBusy(true);
    try {
      await callOperation('removeFeedbackIntegration', { path: { provider: p.id } });
      notify(`${p.name} webhooks removed: its requests are refused from now on`, { type: 'info' });
      await onChange();
    } catch (e) {
      notify(`Couldn’t remove the ${p.name} secret: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box component="section" aria-label={p.name} data-testid={`provider-${p.id}`} sx={{ borderTop: 1, borderColor: 'divider', pt: 2 }}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1, flexWrap: 'wrap' }}>
        <Typography variant="subtitle1" component="h3">
          {p.name}
        </Typography>
        {integration ? <Chip size="small" color="success" label={`Set up (secret ${integration.secret_hint})`} /> : <Chip size="small" label="Not set up" />}
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {p.help}
      </Typography>
      {integration && (
        <Box sx={{ mb: 1 }}>
          <CopyField id={`${p.id}-webhook-url`} label={`${p.name} webhook URL`} value={integration.webhook_url} />
        </Box>
      )}
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'center' } }}>
        <TextField
          size="small"
          type="password"
          autoComplete="off"
          label={integration ? `New ${p.secret.toLowerCase()}` : p.secret}
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && secret.trim().length >= 8) void save();
          }}
          sx={{ flex: 1 }}
        />
        <Button variant="contained" disabled={busy || secret.trim().length < 8} onClick={() => void save()}>
          Save
        </Button>
        {integration && (
          <Button color="error" disabled={busy} onClick={() => void remove()}>
            Remove
          </Button>
        )}
      </Stack>
    </Box>
  );
}

/** ProviderFeedbackCard lists the providers whose bounce and complaint webhooks the project takes. */
export function ProviderFeedbackCard() {
  const [integrations, setIntegrations] = useState<Integration[] | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(async () => {
    try {
      setIntegrations((await callOperation('listFeedbackIntegrations', {}, RETRY.read)).data);
      setError('');
    } catch (e) {
      setError((e as Error).message);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Bounces and complaints from your email provider
        </Typography>
        <Typography sx={{ mb: 2 }}>
          Sending through Postmark, Mailgun, SendGrid, Brevo or Resend? Give it the webhook URL below for its bounce and complaint events, so that bounced
          addresses are suppressed and complaints unsubscribe, as with every other relay. Each request must carry the provider’s own signature or credentials;
          anything else is refused. (Any other relay: verify your domain’s bounce subdomain on the Domains page.)
        </Typography>
        {error && <Alert severity="error">Unable to load the provider webhooks: {error}</Alert>}
        {!error && !integrations && <CircularProgress size={24} aria-label="Loading provider webhooks" />}
        {integrations && (
          <Stack spacing={2}>
            {PROVIDERS.map((p) => (
              <ProviderRow key={p.id} p={p} integration={integrations.find((i) => i.provider === p.id)} onChange={load} />
            ))}
          </Stack>
        )}
      </CardContent>
    </Card>
  );
}
