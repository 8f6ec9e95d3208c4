/**
 * Calls the public pages make (spec part 1 §7: login, sign-up, contact_us, demo login), through the generated typed
 * clients and without react-admin. The login and sign-up hosts are fixed: this origin's /api/{service}.
 */
import { createGatewayClient } from '../../../generated/client.gen';
import { loginErrorText } from '../../domain/errors';
import { RETRY, withRetry } from '../retry';
import { setSession, type Session } from '../session';
import { showToast } from '../toast';

/** ApiError: a gateway answered with an error status; `errors` is its errors list (spec part 1 §8). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: string[],
  ) {
    super(errors.join(', ') || `HTTP ${status}`);
  }
}

/** publicClient returns the typed client of a public gateway on this origin. */
export function publicClient<S extends 'login' | 'signup' | 'contact_us'>(service: S) {
  return createGatewayClient<S>(`/api/${service}`);
}

/**
 * unwrap turns an openapi-fetch result into its data, or throws ApiError with the body's errors (or the status text).
 * Network failures are thrown by openapi-fetch itself as TypeError('Failed to fetch').
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined && result.response.ok) return result.data;
  const errors = (result.error as { errors?: unknown } | undefined)?.errors;
  throw new ApiError(result.response.status, Array.isArray(errors) ? errors.map(String) : [`${result.response.status} ${result.response.statusText}`]);
}

/** retryWrite runs a public write with the spec's write retries (2/200 ms) on network failures and 5xx. */
export function retryWrite<T>(attempt: () => Promise<T>): Promise<T> {
  return withRetry(attempt, RETRY.write);
}

/** The toast after any sign-in (spec part 1 §8 Login success). */
export const LOGGED_IN_TOAST = "You've been logged in!  One moment please....";

/**
 * loginFailureText words a failed sign-in (spec part 1 §8): 'Couldn’t log in: ' + the errors, where anything with 401
 * reads 'invalid username / password' ('... combo' when the request itself failed).
 */
export function loginFailureText(error: unknown): string {
  if (error instanceof ApiError) return `Couldn’t log in: ${loginErrorText(error.errors.length ? error.errors : `${error.status}`)}`;
  return `Couldn’t log in: ${loginErrorText(error, true)}`;
}

/**
 * signIn runs one sign-in request (spec part 1 §4, §8; /login and /demo-login). On success it stores the session,
 * shows the logged-in toast, calls `onSignedIn` (the page navigates to Insights) and resolves true; on failure it shows
 * loginFailureText as a toast, calls `onFailure` with the same text (for the inline error) and resolves false.
 */
export async function signIn(request: () => Promise<Session>, onSignedIn: () => void, onFailure: (text: string) => void): Promise<boolean> {
  try {
    setSession(await request());
  } catch (e) {
    const text = loginFailureText(e);
    showToast(text, 'error');
    onFailure(text);
    return false;
  }
  showToast(LOGGED_IN_TOAST, 'success');
  onSignedIn();
  return true;
}
