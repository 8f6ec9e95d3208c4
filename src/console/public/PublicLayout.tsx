/** The public site's frame (spec part 1 §2 Public pages): a top bar with the main links, then the page. */
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { AppBar, Box, Button, Container, Toolbar, Typography } from '@mui/material';
import { FREE_EMAILS_PER_MONTH } from '../../domain/pricing';
import { useSession } from '../session';

/** PublicLayout wraps a public page with the site's top bar and footer. */
export function PublicLayout({ children }: { children: ReactNode }) {
  const session = useSession();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <AppBar position="static" color="primary" elevation={0}>
        <Toolbar component="nav" aria-label="Site">
          <Typography
            variant="h6"
            component={RouterLink}
            to="/"
            sx={{ color: 'inherit', textDecoration: 'none', flexGrow: 1, fontWeight: 700 }}
          >
            Mailwright
          </Typography>
          <Button color="inherit" component={RouterLink} to="/pricing">
            Pricing
          </Button>
          <Button color="inherit" component={RouterLink} to="/blog">
            Blog
          </Button>
          <Button color="inherit" component={RouterLink} to="/about">
            About
          </Button>
          {session ? (
            <Button color="inherit" component={RouterLink} to="/insights">
              Console
            </Button>
          ) : (
            <Button color="inherit" component={RouterLink} to="/login">
              Log in
            </Button>
          )}
        </Toolbar>
      </AppBar>
      <Container component="main" maxWidth="lg" sx={{ flexGrow: 1, py: 4 }}>
        {children}
      </Container>
      <Box component="footer" sx={{ py: 2, textAlign: 'center', color: 'text.secondary', fontSize: 14 }}>
        Mailwright: pay-as-you-go email. The first {FREE_EMAILS_PER_MONTH.toLocaleString('en-US')} emails a month are free.
      </Box>
    </Box>
  );
}
