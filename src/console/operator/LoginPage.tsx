/** The operators' sign-in page, /operator/login (its own session: the mw_operator cookie). */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Alert, Box, Button, Container, Paper, TextField, Typography } from '@mui/material';
import { ok, OperatorApiError, operatorClient } from './operatorApi';

/** OperatorLogin is the operators' sign-in form. */
export function OperatorLogin() {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      ok(await operatorClient.POST('/login', { body: { email: email.trim(), password } }));
      navigate('/operator', { replace: true });
    } catch (err) {
      setError(err instanceof OperatorApiError && err.status === 401 ? 'Wrong email or password.' : (err as Error).message);
      setBusy(false);
    }
  };
  return (
    <Container maxWidth="xs" sx={{ py: 8 }}>
      <Paper sx={{ p: 3 }}>
        <Typography variant="h5" component="h1" gutterBottom>
          Mailwright operators
        </Typography>
        <Box component="form" onSubmit={submit} sx={{ display: 'grid', gap: 2 }}>
          <TextField
            id="operator-email"
            label="Email"
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            autoFocus
          />
          <TextField
            id="operator-password"
            label="Password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          {error && <Alert severity="error">{error}</Alert>}
          <Button type="submit" variant="contained" disabled={busy || !email || !password}>
            Sign in
          </Button>
        </Box>
      </Paper>
    </Container>
  );
}
