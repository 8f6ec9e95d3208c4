/**
 * /demo-login (spec part 1 §2, §4, §5, §6): an email (no format check) and the agreement to the terms (no
 * illegal images; images may be replaced; consent to communications). The button is disabled while sending and until
 * the terms are accepted; success signs in to the shared demo account and goes to Insights.
 */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Box, Button, Checkbox, FormControlLabel, List, ListItem, TextField, Typography } from '@mui/material';
import { FormCard } from './FormCard';
import { pageTitle, usePageMeta } from './pageMeta';
import { publicClient, retryWrite, signIn, unwrap } from './publicApi';

/** The demo's terms (spec part 1 §2 /demo-login). */
export const DEMO_TERMS = [
  'Do not upload illegal images.',
  'Images you upload may be replaced, and the demo data is reset regularly.',
  'You consent to receive communications from us at the email you give.',
];

/** DemoLoginPage signs a visitor in to the shared demo account. */
export function DemoLoginPage() {
  usePageMeta(
    pageTitle('Try the demo'),
    'Explore Mailwright’s console in a shared demo account with sample contacts, a sender persona and a template. No sign-up needed.',
  );
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [agreed, setAgreed] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (sending || !agreed) return;
    setSending(true);
    setError('');
    const request = async () =>
      retryWrite(async () => unwrap(await publicClient('login').POST('/demo_login', { body: { email: email.trim(), agreed: true } })));
    await signIn(
      request,
      () => navigate('/insights', { replace: true }),
      (text) => {
        setError(text);
        setSending(false);
      },
    );
  };

  return (
    <FormCard title={'Try the demo'} maxWidth={520}>
      <Typography sx={{ mb: 2 }}>
        Explore a shared demo account with sample contacts, a sender persona and a template. Everyone uses the same account, so its data is put back to a known
        state regularly.
      </Typography>
      <Box component="form" onSubmit={submit} noValidate sx={{ display: 'grid', gap: 2 }}>
        <TextField
          id="demo-email"
          label="Your email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          disabled={sending}
        />
        <Typography variant="h6" component="h2">
          Terms
        </Typography>
        <List dense sx={{ listStyleType: 'disc', pl: 3, py: 0 }}>
          {DEMO_TERMS.map((t) => (
            <ListItem key={t} sx={{ display: 'list-item', py: 0 }}>
              {t}
            </ListItem>
          ))}
        </List>
        <FormControlLabel
          control={<Checkbox checked={agreed} onChange={(e) => setAgreed(e.target.checked)} disabled={sending} />}
          label="I agree to these terms"
        />
        <Button type="submit" variant="contained" disabled={sending || !agreed || !email.trim()}>
          Enter the demo
        </Button>
        {error && (
          <Typography color="error" role="alert">
            {error}
          </Typography>
        )}
      </Box>
    </FormCard>
  );
}
