/**
 * Error text normalising for display (spec part 1 §8, part 2 §8): brackets, braces and quotes are stripped and
 * "Failed to fetch" reads "Unknown networking error".
 */

/** normaliseErrorText turns an errors list, an Error or any thrown value into the one line the console shows. */
export function normaliseErrorText(error: unknown): string {
  let text: string;
  if (Array.isArray(error)) text = error.map(String).join(', ');
  else if (error instanceof Error) text = error.message;
  else if (error && typeof error === 'object' && Array.isArray((error as { errors?: unknown }).errors)) {
    text = (error as { errors: unknown[] }).errors.map(String).join(', ');
  } else text = String(error ?? '');
  if (/failed to fetch/i.test(text)) return 'Unknown networking error';
  return text.replace(/[[\]{}"'`]/g, '').trim();
}

/** loginErrorText maps a login failure to the spec's wording: anything mentioning 401 is a bad password. */
export function loginErrorText(error: unknown, thrown = false): string {
  const text = normaliseErrorText(error);
  if (text.includes('401')) return thrown ? 'invalid username / password combo' : 'invalid username / password';
  return text;
}

/** The sign-up form's fields that errors are routed to (spec part 1 §8 sign-up). */
export type SignupField = 'first_name' | 'last_name' | 'business_name' | 'business_website' | 'email' | 'password' | 'captcha';

/** The payload field each message prefix names (openapi/signup.yaml), mapped to the form's field. */
const SIGNUP_PREFIXES: Array<[string, SignupField]> = [
  ['company_user.json.business_website', 'business_website'],
  ['company_user.first_name', 'first_name'],
  ['company_user.last_name', 'last_name'],
  ['company_user.email', 'email'],
  ['company_display_name', 'business_name'],
];

/**
 * signupFieldErrors routes sign-up error messages to form fields: any message containing 'captcha' goes to the captcha
 * field and any containing 'password' to the password field (spec part 1 §8); others by the payload field they start
 * with. The field's text is the message without its field prefix. Messages naming no field are left out (they still
 * show on the error line).
 */
export function signupFieldErrors(errors: string[]): Partial<Record<SignupField, string>> {
  const out: Partial<Record<SignupField, string>> = {};
  for (const raw of errors) {
    const message = raw.replace(/^[\w.[\]]+:\s*/, '');
    let field: SignupField | undefined;
    if (/captcha/i.test(raw)) field = 'captcha';
    else if (/password/i.test(raw)) field = 'password';
    else field = SIGNUP_PREFIXES.find(([prefix]) => raw.startsWith(`${prefix}:`))?.[1];
    if (field && !out[field]) out[field] = message;
  }
  return out;
}

/** The sign-up form's labels, used to name a field in words where a message named its payload field. */
export const SIGNUP_LABELS: Record<SignupField, string> = {
  first_name: 'First name',
  last_name: 'Last name',
  business_name: 'Business name',
  business_website: 'Business website',
  email: 'Business email',
  password: 'Password',
  captcha: 'Captcha',
};

/**
 * signupMessagesInWords rewrites sign-up error messages for people: a payload field prefix
 * ('company_user.email: Required field') becomes the form's label ('Business email: Required field'), so the error
 * line never shows API field names.
 */
export function signupMessagesInWords(errors: string[]): string[] {
  return errors.map((raw) => {
    if (raw.startsWith('password:')) return `${SIGNUP_LABELS.password}:${raw.slice('password:'.length)}`;
    const hit = SIGNUP_PREFIXES.find(([prefix]) => raw.startsWith(`${prefix}:`));
    return hit ? `${SIGNUP_LABELS[hit[1]]}:${raw.slice(hit[0].length + 1)}` : raw;
  });
}

/**
 * signupErrorText is the sign-up page's error line, 'Error: ' + the joined errors (spec part 1 §8); a failed inner
 * call with 401 reads 'invalid username / password combo'.
 */
export function signupErrorText(errors: string[]): string {
  const text = normaliseErrorText(errors);
  return `Error: ${/\b401\b/.test(text) ? 'invalid username / password combo' : text}`;
}

/** The support address the public pages give (spec part 1 §8 contact form failure). */
export const SUPPORT_EMAIL = 'support@mailwright.test';

/**
 * contactErrorText is the contact form's failure line: 'Error: ' + the joined errors, or, when the request never
 * reached the server, the spec's advice to check the inputs or email support (spec part 1 §8).
 */
export function contactErrorText(error: unknown): string {
  const text = normaliseErrorText(error);
  if (text === 'Unknown networking error' || error instanceof TypeError) {
    return `Error: unable to send message, please check your inputs and try again, or email us at ${SUPPORT_EMAIL}`;
  }
  return `Error: ${text}`;
}
