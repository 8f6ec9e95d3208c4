/**
 * One call to a gateway operation (spec part 1 §7, part 2 §7): the URL is the session's api_<service>_gateway plus
 * the operation's path from generated/operations.gen.ts, with the x-api-key header, JSON bodies, the spec's retries
 * and `{errors: string[]}` bodies turned into react-admin HttpErrors.
 */
import { HttpError } from 'react-admin';
import { operations, type OperationId } from '../../../generated/operations.gen';
import { normaliseErrorText } from '../../domain/errors';
import { gatewayUrl, getSession, refreshSession } from '../session';
import { RETRY, withRetry } from '../retry';
import type { CallArgs, CallParams, OperationResponse, RetryPolicy } from './apiTypes';

export { RETRY, withRetry };
export type { CallArgs, CallParams, OperationResponse, RetryPolicy };

/**
 * The parameters of a call to an operation chosen at run time (callOperationUnchecked), which only the gateway checks:
 * path parameters, query parameters (undefined, null and '' are left out) and the JSON body.
 */
export interface UncheckedCallParams {
  path?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** operationUrl builds the absolute URL of an operation with its path and query parameters filled in. */
export function operationUrl(operationId: OperationId, params: UncheckedCallParams = {}): string {
  const op = operations[operationId];
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params.path?.[name] ?? '')));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params.query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    search.set(key, String(value));
  }
  const qs = search.toString();
  return `${gatewayUrl(op.service)}${path}${qs ? `?${qs}` : ''}`;
}

/**
 * callOperation performs one gateway operation (retried by `retry`, default reads 2/250 ms, writes 2/200 ms) and
 * returns its parsed JSON body, typed from the spec: `params` ({body, query, path}) is the operation's request as
 * generated/ declares it (CallParams) and the answer its 200 body (OperationResponse). A non-2xx answer throws an
 * HttpError whose message is the normalised `errors` text (spec part 1 §8) and whose status is the HTTP status; a
 * network failure throws an HttpError with status 0.
 */
export function callOperation<Id extends OperationId>(operationId: Id, ...[params, retry]: CallArgs<Id>): Promise<OperationResponse<Id>> {
  return callOperationUnchecked(operationId, params as UncheckedCallParams | undefined, retry) as Promise<OperationResponse<Id>>;
}

/**
 * callOperationUnchecked is callOperation for an operation chosen at run time (the dataProvider's verbs read a
 * resource's list, count, save and archive operations from generated/resources.gen.ts): the same request, retries and
 * HttpErrors, but its params are not checked against the spec and its answer is `unknown`, for the caller to narrow.
 */
export async function callOperationUnchecked(operationId: OperationId, params: UncheckedCallParams = {}, retry?: RetryPolicy): Promise<unknown> {
  const op = operations[operationId];
  const session = getSession();
  refreshSession();
  const url = operationUrl(operationId, params);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (session) headers['x-api-key'] = session.api_client_key;
  if (params.body !== undefined) headers['Content-Type'] = 'application/json';
  const attempt = async (): Promise<unknown> => {
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
    return json;
  };
  try {
    return await withRetry(attempt, retry ?? (op.method === 'GET' ? RETRY.read : RETRY.write));
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(normaliseErrorText(error), 0, {});
  }
}
