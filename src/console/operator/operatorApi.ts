/**
 * The operator back-office's calls (openapi/operator.yaml) through the generated typed client. The session is the
 * HttpOnly mw_operator cookie the browser sends by itself (same origin); no x-api-key is ever sent from here. Every
 * call carries the X-Requested-With header: the server takes a change signed in with the cookie only with a JSON body
 * or that header, which no form and no other site's page can send (server/plugins/crossSiteGuard.ts), and the
 * sandbox, verify and reset calls have no body.
 */
import { createGatewayClient } from '../../../generated/client.gen';
import type { components } from '../../../generated/types/operator.gen';

export type ProjectRow = components['schemas']['ProjectRow'];
export type ProjectDetail = components['schemas']['ProjectDetail'];
export type OperatorMessage = components['schemas']['Message'];
export type AuditEntry = components['schemas']['AuditEntry'];

/** The header and value every back-office call sends (the server checks the header's presence, not its value). */
export const REQUESTED_WITH = { name: 'X-Requested-With', value: 'mailwright-operator' } as const;

/** The operator gateway's typed client on this origin; each request carries REQUESTED_WITH. */
export const operatorClient = createGatewayClient<'operator'>('/api/operator');
operatorClient.use({
  onRequest({ request }) {
    request.headers.set(REQUESTED_WITH.name, REQUESTED_WITH.value);
    return request;
  },
});

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
