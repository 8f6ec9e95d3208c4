/**
 * The sandbox chat assistant widget (spec part 1 §1 "appears only for one internal test company, and only when the
 * query flag withai=true is present", §7 AI chat: session and session-refresh calls returning client_secret, the
 * login message retried up to 3 times 2 s apart). The server decides which company may see it and
 * proxies to the provider; with no provider configured the widget says 'assistant not configured'.
 */
import { useEffect, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { Alert, Button, Card, CardContent, Typography } from '@mui/material';
import type { components } from '../../../generated/types/companyauthwrapper.gen';
import { callOperation } from '../data/gateway';
import { getSession } from '../session';

type Status = components['schemas']['AssistantStatus'];

/** The session call's retries (spec part 1 §7): 3 times, 2 s apart. */
const SESSION_RETRY = { retries: 3, delayMs: 2000 };
/** How often the client secret is refreshed while the widget is open (ms). */
const REFRESH_MS = 10 * 60 * 1000;

/** AssistantWidget renders nothing unless ?withai=true and the server offers the assistant to this company. */
export function AssistantWidget() {
  const { search } = useLocation();
  const wanted = new URLSearchParams(search).get('withai') === 'true';
  const [status, setStatus] = useState<Status | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    if (!wanted) return;
    callOperation('getAssistantStatus').then(setStatus, () => setStatus(null));
  }, [wanted]);

  useEffect(() => {
    if (!secret) return;
    const timer = setInterval(() => {
      callOperation('refreshAssistantSession', { body: { client_secret: secret } }).then(
        (r) => setSecret(r.client_secret),
        (e: Error) => setError(e.message),
      );
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [secret]);

  if (!wanted || !status?.enabled) return null;

  const start = async () => {
    const session = getSession();
    if (!session) return;
    setError('');
    try {
      const r = await callOperation(
        'createAssistantSession',
        {
          body: { email: session.user.email, endpoints: session.endpoints, api_key: session.api_client_key },
        },
        SESSION_RETRY,
      );
      setSecret(r.client_secret);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <Card
      role="complementary"
      aria-label="Assistant"
      sx={{ position: 'fixed', right: 16, bottom: 16, width: 320, zIndex: 1300 }}
      data-testid="assistant-widget"
    >
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Sandbox assistant
        </Typography>
        {!status.configured ? (
          <Alert severity="warning">The assistant is not available: assistant not configured. Set ASSISTANT_PROVIDER_URL on the server.</Alert>
        ) : secret ? (
          <Alert severity="success">Connected to the assistant.</Alert>
        ) : (
          <Button variant="contained" onClick={() => void start()}>
            Start a chat
          </Button>
        )}
        {error && (
          <Alert severity="error" sx={{ mt: 1 }}>
            Couldn’t reach the assistant: {error}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}
