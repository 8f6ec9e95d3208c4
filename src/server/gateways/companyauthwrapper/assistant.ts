/**
 * The sandbox chat assistant's server side (spec part 1 §1 "only for one internal test company", §7 AI chat): the console never talks to the provider; the server checks the company and forwards the session and refresh
 * calls to ASSISTANT_PROVIDER_URL with its bearer key, so the provider's key never reaches a browser.
 */
import type { Config } from '../../config.ts';
import { HttpError } from '../../errors.ts';
import type { ProjectScope } from '../../core/scope.ts';

/** How long the provider may take (ms). */
const PROVIDER_TIMEOUT_MS = 10_000;

/** The message shown when no provider is configured. */
export const ASSISTANT_NOT_CONFIGURED = 'assistant: assistant not configured';

/** assistantAllowed is true only for the one internal company named by ASSISTANT_COMPANY. */
export function assistantAllowed(config: Config, project: ProjectScope): boolean {
  return !!config.assistant.company && config.assistant.company === project.companyName;
}

/**
 * assistantCall POSTs `body` to the provider's `path` (/session or /session/refresh) and returns its client_secret.
 * Throws 403 for any other company, 503 ASSISTANT_NOT_CONFIGURED without a provider, 502 when the provider fails or
 * answers without a client_secret.
 */
export async function assistantCall(config: Config, project: ProjectScope, path: string, body: object): Promise<{ client_secret: string }> {
  if (!assistantAllowed(config, project)) throw new HttpError(403, ['assistant: the assistant is not offered to this company']);
  const { providerUrl, providerKey } = config.assistant;
  if (!providerUrl) throw new HttpError(503, [ASSISTANT_NOT_CONFIGURED]);
  let res: Response;
  try {
    res = await fetch(`${providerUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(providerKey ? { authorization: `Bearer ${providerKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch (err) {
    throw new HttpError(502, [`assistant: the assistant provider could not be reached (${(err as Error).message})`]);
  }
  const answer = (await res.json().catch(() => ({}))) as { client_secret?: unknown };
  if (!res.ok || typeof answer.client_secret !== 'string') {
    throw new HttpError(502, [`assistant: the assistant provider answered ${res.status}${res.ok ? ' without a client_secret' : ''}`]);
  }
  return { client_secret: answer.client_secret };
}
