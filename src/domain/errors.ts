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
    text = ((error as { errors: unknown[] }).errors).map(String).join(', ');
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
