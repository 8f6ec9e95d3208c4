/**
 * The login page (spec part 1 §2 /login, §4 Login, §8): a random greeting, email and password, Enter in the password
 * field submits; on success the session is stored and the browser goes to /insights.
 */
import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Box, Button, TextField, Typography } from '@mui/material';
import type { Session } from '../session';
import { FormCard } from './FormCard';
import { pageTitle, usePageMeta } from './pageMeta';
import { publicClient, retryWrite, signIn, unwrap } from './publicApi';

const GREETINGS = ['Welcome back!', 'Good to see you again!', 'Hello again!', 'Ready to send some email?', 'Nice to have you back!'];

/** logIn posts the credentials to the login gateway (retry 2/200 ms on network failures) and returns the session. */
async function logIn(email: string, password: string): Promise<Session> {
  const client = publicClient('login');
  return retryWrite(async () => unwrap(await client.POST('/login', { body: { email, password } })));
}

/** LoginPage renders the login form and performs the login. */
export function LoginPage() {
  usePageMeta(pageTitle('Log in'), 'Log in to the Mailwright console.');
  const greeting = useMemo(() => GREETINGS[Math.floor(Math.random() * GREETINGS.length)], []);
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState('');

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (submitting) return;
    setSubmitting(true);
    setError('');
    await signIn(
      () => logIn(email.trim(), password),
      () => navigate('/insights', { replace: true }),
      (text) => {
        setError(text);
        setSubmitting(false);
      },
    );
  };

  return (
    <FormCard title={greeting} maxWidth={420}>
      <Box component="form" onSubmit={submit} noValidate sx={{ display: 'grid', gap: 2 }}>
        <TextField id="login-email" label="Email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        <TextField
          id="login-password"
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void submit();
            }
          }}
        />
        <Button type="submit" variant="contained" disabled={submitting}>
          Log in
        </Button>
        {error && (
          <Typography color="error" role="alert" data-testid="login-error">
            {error}
          </Typography>
        )}
      </Box>
    </FormCard>
  );
}
