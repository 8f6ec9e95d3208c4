/**
 * One call to a gateway operation (spec part 1 §7, part 2 §7): the URL is the session's api_<service>_gateway plus
 * the operation's path from generated/operations.gen.ts, with the x-api-key header, JSON bodies, the spec's retries
 * and `{errors: string[]}` bodies turned into react-admin HttpErrors.
 */
import { HttpError } from 'react-admin';
import { operations, type OperationId } from '../../../generated/operations.gen';
import { normaliseErrorText } from '../../domain/errors';
import { gatewayUrl, getSession, refreshSession } from '../session';

/** Retry policies of spec part 1 §9 / part 2 §7 (count/delay): reads 2/250 ms, writes 2/200 ms. */
export const RETRY = {
  read: { retries: 2, delayMs: 250 },
  write: { retries: 2, delayMs: 200 },
} as const;

export interface CallParams {
  /** Path parameters, e.g. `{ids: 'a,b'}` for `/templates/{ids}`. */
  path?: Record<string, string>;
  /** Query parameters; undefined, null and '' are left out. */
  query?: Record<string, string | number | boolean | null | undefined>;
  /** The JSON body of a POST. */
  body?: unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** isRetryable is true for network failures and 5xx/429 answers; other HTTP errors are final. */
function isRetryable(error: unknown): boolean {
  if (error instanceof HttpError) return error.status >= 500 || error.status === 429;
  return true;
}

/** withRetry runs `attempt` and retries it `retries` times, `delayMs` apart, while the failure is retryable. */
export async function withRetry<T>(attempt: () => Promise<T>, policy: { retries: number; delayMs: number }): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= policy.retries || !isRetryable(error)) throw error;
      await sleep(policy.delayMs);
    }
  }
}

/** operationUrl builds the absolute URL of an operation with its path and query parameters filled in. */
export function operationUrl(operationId: OperationId, params: CallParams = {}): string {
  const op = operations[operationId];
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params.path?.[name] ?? ''));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params.query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    search.set(key, String(value));
  }
  const qs = search.toString();
  return `${gatewayUrl(op.service)}${path}${qs ? `?${qs}` : ''}`;
}

/**
 * callOperation performs one gateway operation and returns its parsed JSON body; a non-2xx answer throws an
 * HttpError whose message is the normalised `errors` text (spec part 1 §8) and whose status is the HTTP status.
 */
export async function callOperation<T = Record<string, unknown>>(operationId: OperationId, params: CallParams = {}): Promise<T> {
  const op = operations[operationId];
  const session = getSession();
  refreshSession();
  const url = operationUrl(operationId, params);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (session) headers['x-api-key'] = session.api_client_key;
  if (params.body !== undefined) headers['Content-Type'] = 'application/json';
  const attempt = async (): Promise<T> => {
    const response = await fetch(url, {
      method: op.method,
      headers,
      body: params.body === undefined ? undefined : JSON.stringify(params.body),
    });
    const text = await response.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { errors: [text || response.statusText] };
    }
    if (!response.ok) {
      const errors = (json as { errors?: unknown })?.errors;
      const message = normaliseErrorText(Array.isArray(errors) ? errors : `${response.status} ${response.statusText}`);
      throw new HttpError(message || `HTTP ${response.status}`, response.status, json);
    }
    return json as T;
  };
  try {
    return await withRetry(attempt, op.method === 'GET' ? RETRY.read : RETRY.write);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(normaliseErrorText(error), 0, {});
  }
}
