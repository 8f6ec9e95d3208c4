/** The back-office's frame: the bar with the signed-in operator, and the guard that sends a visitor without a session to the sign-in page. */
import { useEffect, useState, type ReactNode } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import { Alert, AppBar, Box, Button, CircularProgress, Container, Toolbar, Typography } from '@mui/material';
import { ok, operatorClient } from './operatorApi';
import { useFailure } from './common';

/** Frame is the back-office's top bar (who is signed in, sign out) around a page. */
function Frame({ email, children }: { email: string; children: ReactNode }) {
  const navigate = useNavigate();
  const signOut = async () => {
    await operatorClient.POST('/logout').catch(() => undefined);
    navigate('/operator/login', { replace: true });
  };
  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default' }}>
      <AppBar position="static" color="default">
        <Toolbar sx={{ gap: 2, flexWrap: 'wrap' }}>
          <Typography component={RouterLink} to="/operator" variant="h6" sx={{ color: 'inherit', textDecoration: 'none', flexGrow: 1 }}>
            Mailwright operators
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {email}
          </Typography>
          <Button onClick={signOut}>Sign out</Button>
        </Toolbar>
      </AppBar>
      <Container maxWidth="lg" sx={{ py: 3 }}>
        {children}
      </Container>
    </Box>
  );
}

/** Signed wraps a page: it loads the signed-in operator first and sends a visitor without a session to the sign-in page. */
export function Signed({ children }: { children: ReactNode }) {
  const fail = useFailure();
  const [email, setEmail] = useState<string | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    operatorClient
      .GET('/me')
      .then(ok)
      .then(
        (r) => setEmail(r.email),
        (e) => setError(fail(e)),
      );
  }, [fail]);
  if (error) return <Alert severity="error">{error}</Alert>;
  if (!email) return <CircularProgress aria-label="Loading" sx={{ m: 4 }} />;
  return <Frame email={email}>{children}</Frame>;
}
