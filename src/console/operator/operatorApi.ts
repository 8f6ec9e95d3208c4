/**
 * The operator back-office's calls (openapi/operator.yaml) through the generated typed client. The session is the
 * HttpOnly mw_operator cookie the browser sends by itself (same origin); no x-api-key is ever sent from here.
 */
import { createGatewayClient } from '../../../generated/client.gen';
import type { components } from '../../../generated/types/operator.gen';

export type ProjectRow = components['schemas']['ProjectRow'];
export type ProjectDetail = components['schemas']['ProjectDetail'];
export type OperatorMessage = components['schemas']['Message'];
export type AuditEntry = components['schemas']['AuditEntry'];

/** The operator gateway's typed client on this origin. */
export const operatorClient = createGatewayClient<'operator'>('/api/operator');

/** OperatorApiError: the gateway answered with an error status; `errors` is its errors list. */
export class OperatorApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: string[],
  ) {
    super(errors.join('; ') || `HTTP ${status}`);
  }
}

/** ok returns a result's data, or throws OperatorApiError with the body's errors (401 means: sign in again). */
export function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined && result.response.ok) return result.data;
  const errors = (result.error as { errors?: string[] } | undefined)?.errors ?? [result.response.statusText];
  throw new OperatorApiError(result.response.status, errors);
}
