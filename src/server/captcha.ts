/**
 * The optional captcha of the public forms (spec part 1 §7 sign-up "invisible v3 captcha, action submit", §8 captcha
 * errors): verified server-side with the configured provider's siteverify endpoint, off when none is
 * configured (Config.captcha undefined).
 */
import type { Config } from './config.ts';

/** How long the provider may take before the form is refused (ms). */
const VERIFY_TIMEOUT_MS = 5000;

/**
 * verifyCaptcha checks `answer` (the token the page got from the provider's script) with the configured provider:
 * POST `secret`, `response` and `remoteip` as a form to its verify URL; accepted when it answers `success: true` and,
 * for score-based (v3) providers, a `score` of at least `minScore` and an `action` of 'submit' when one is given.
 * Returns undefined when accepted or when no provider is configured, else the reason (without the field name). Never
 * throws: a provider that cannot be reached refuses the form, since an unverified form is what the captcha prevents.
 */
export async function verifyCaptcha(captcha: Config['captcha'], answer: string | null | undefined, remoteIp?: string): Promise<string | undefined> {
  if (!captcha) return undefined;
  if (!answer) return 'please complete the captcha (no answer was sent; is the captcha script blocked?)';
  let result: { success?: boolean; score?: number; action?: string; 'error-codes'?: string[] };
  try {
    const res = await fetch(captcha.verifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: captcha.secret, response: answer, ...(remoteIp ? { remoteip: remoteIp } : {}) }),
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
    if (!res.ok) return `could not be verified (the captcha provider answered ${res.status}); please try again`;
    result = (await res.json()) as typeof result;
  } catch (err) {
    return `could not be verified (${(err as Error).message}); please try again`;
  }
  if (!result.success) return `verification failed${result['error-codes']?.length ? ` (${result['error-codes'].join(', ')})` : ''}; please try again`;
  if (typeof result.score === 'number' && result.score < captcha.minScore) return 'verification failed (the answer looked automated); please try again';
  if (result.action && result.action !== 'submit') return `verification failed (unexpected action ${result.action}); please try again`;
  return undefined;
}
