/**
 * The contact form (spec part 1 §2 /contact-us, /about/contact-us, /about/contact-us/2; §3 Contact message; §4 "Contact
 * form ... disable their button while sending"; §5 no client-side checks except the captcha; §7 retry 2/200 ms; §8
 * texts). Email and message, plus an optional name; stored server-side. /about/contact-us sends and then
 * shows /about/contact-us/2, the confirmation step; /contact-us confirms in place.
 */
import { useState, type FormEvent } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import { Box, Button, Link, TextField, Typography } from '@mui/material';
import { contactErrorText, SUPPORT_EMAIL } from '../../domain/errors';
import { showToast } from '../toast';
import { captchaAnswer } from './captcha';
import { FormCard } from './FormCard';
import { pageTitle, usePageMeta } from './pageMeta';
import { PublicLayout } from './PublicLayout';
import { ApiError, publicClient, retryWrite, unwrap } from './publicApi';

/** The success text (spec part 1 §8). */
export const CONTACT_SUCCESS = 'We’ll get back to you as soon as we can!';

/** ContactUsPage renders the form; `variant` 'about' moves on to /about/contact-us/2 after sending. */
export function ContactUsPage({ variant = 'site' }: { variant?: 'site' | 'about' }) {
  usePageMeta(pageTitle('Contact us'), 'Questions about pricing, activation or the API? Write to the Mailwright team and we reply by email.');
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [details, setDetails] = useState('');
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState('');
  const [captchaError, setCaptchaError] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (sending) return;
    setSending(true);
    setError('');
    setCaptchaError('');
    try {
      const answer = await captchaAnswer('submit');
      await retryWrite(async () =>
        unwrap(
          await publicClient('contact_us').POST('/contact_us', {
            body: { email: email.trim(), name: name.trim() || null, details, captcha_answer: answer, captcha_id: null },
          }),
        ),
      );
      showToast(CONTACT_SUCCESS, 'success');
      if (variant === 'about') navigate('/about/contact-us/2');
      else setSent(true);
    } catch (e) {
      const errors = e instanceof ApiError ? e.errors : e;
      const captcha = Array.isArray(errors) ? errors.find((m) => /captcha/i.test(m)) : undefined;
      if (captcha) setCaptchaError(captcha.replace(/^captcha:\s*/, ''));
      const text = contactErrorText(errors);
      setError(text);
      showToast(text, 'error');
    } finally {
      setSending(false);
    }
  };

  return (
    <FormCard title={'Contact us'} maxWidth={600}>
      {sent ? (
        <Typography role="status" data-testid="contact-success">
          {CONTACT_SUCCESS}
        </Typography>
      ) : (
        <>
          <Typography sx={{ mb: 2 }}>
            Questions about pricing, activation or the API? Tell us your expected monthly volume and we will reply by email. You can also write to{' '}
            <Link href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</Link>.
          </Typography>
          <Box component="form" onSubmit={submit} noValidate sx={{ display: 'grid', gap: 2 }}>
            <TextField
              id="contact-email"
              label="Email"
              type="email"
              autoComplete="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              disabled={sending}
            />
            <TextField
              id="contact-name"
              label="Name (optional)"
              autoComplete="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              disabled={sending}
            />
            <TextField
              id="contact-details"
              label="Message"
              multiline
              minRows={5}
              value={details}
              onChange={(e) => setDetails(e.target.value)}
              disabled={sending}
              helperText={`${details.length} / 5,000 characters`}
            />
            {captchaError && (
              <Typography color="error" data-testid="contact-captcha-error">
                Captcha: {captchaError}
              </Typography>
            )}
            <Button type="submit" variant="contained" disabled={sending}>
              Send message
            </Button>
            {error && (
              <Typography color="error" role="alert" data-testid="contact-error">
                {error}
              </Typography>
            )}
          </Box>
        </>
      )}
    </FormCard>
  );
}

/** ContactSentPage is /about/contact-us/2: the confirmation after sending from /about/contact-us. */
export function ContactSentPage() {
  usePageMeta(pageTitle('Message sent'), 'Your message reached the Mailwright team; we reply by email as soon as we can.');
  return (
    <PublicLayout>
      <Typography variant="h4" component="h1" gutterBottom>
        Message sent
      </Typography>
      <Typography role="status" sx={{ mb: 2 }}>
        {CONTACT_SUCCESS}
      </Typography>
      <Button variant="outlined" component={RouterLink} to="/about">
        Back to About
      </Button>
    </PublicLayout>
  );
}
