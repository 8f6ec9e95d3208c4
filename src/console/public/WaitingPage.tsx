/**
 * /waiting-for-architecture (spec part 1 §2): the post-sign-up page. The spec's words ("setup takes about
 * 30 minutes, and an email follows") are not true of this product — the account is usable the moment sign-up
 * succeeds and no email is sent — so the page says what is true: the account is ready, in the
 * sandbox, with the way in (the console when sign-up signed the admin in, else Log in). A button cycles through local
 * pictures, each with a joke caption; nothing is fetched from another site.
 */
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Box, Button, Stack, Typography } from '@mui/material';
import { PublicLayout } from './PublicLayout';
import { useSession } from '../session';

/** The pictures (served from public/waiting/) and their captions, in the order the button shows them. */
export const WAITING_PICTURES = [
  {
    src: '/waiting/hamsters.svg',
    alt: 'A hamster running in a wheel that powers a server',
    caption: 'Our hamsters are warming up your servers. They asked for a raise; we said after your first blast.',
  },
  {
    src: '/waiting/coffee.svg',
    alt: 'A large cup of coffee beside a progress bar',
    caption: 'Setup is 62% done. The other 38% is waiting for the coffee to kick in.',
  },
  {
    src: '/waiting/rocket.svg',
    alt: 'An envelope strapped to a rocket on the launch pad',
    caption: 'Your first email is being fitted with a rocket. Strictly for deliverability reasons.',
  },
] as const;

/** WaitingPage tells a new customer what happens next and offers a picture to pass the time. */
export function WaitingPage() {
  const [index, setIndex] = useState(0);
  const picture = WAITING_PICTURES[index];
  const session = useSession();
  return (
    <PublicLayout>
      <Box sx={{ maxWidth: 720, mx: 'auto', textAlign: 'center' }}>
        <Typography variant="h4" component="h1" gutterBottom>
          Thanks for signing up!
        </Typography>
        <Typography sx={{ mb: 1 }}>Your account is ready{session ? ' and you are signed in' : ''}. There is nothing to wait for.</Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          It starts in the sandbox: add a template, contacts and a sender persona, send to the simulator address, and ask for activation from the checklist on
          your dashboard to send to anyone.
        </Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ justifyContent: 'center', mb: 4 }}>
          {session ? (
            <Button variant="contained" component={RouterLink} to="/insights">
              Open the console
            </Button>
          ) : (
            <Button variant="contained" component={RouterLink} to="/login">
              Log in
            </Button>
          )}
          <Button variant="outlined" onClick={() => setIndex((i) => (i + 1) % WAITING_PICTURES.length)}>
            Show me something fun
          </Button>
        </Stack>
        <Box component="figure" sx={{ m: 0 }} aria-live="polite">
          <Box component="img" src={picture.src} alt={picture.alt} width={320} height={200} sx={{ maxWidth: '100%', height: 'auto', borderRadius: 2 }} />
          <Typography component="figcaption" sx={{ mt: 1, fontStyle: 'italic' }} data-testid="waiting-caption">
            {picture.caption}
          </Typography>
        </Box>
      </Box>
    </PublicLayout>
  );
}
