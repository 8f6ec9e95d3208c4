/**
 * The email providers whose feedback webhooks a project takes (POST {event}/feedback/{provider}/{integration_key})
 * and what each must prove (table feedback_integrations): Postmark's user:password, Mailgun's signing key, SendGrid's
 * verification key, Brevo's token, Resend's whsec_ secret. The proof is checked in gateways/event/providers.ts; what
 * the events change is inbound.ts's applyProviderEvents.
 */
import type { QueryFn } from '../../db/client.ts';
import type { FeedbackProvider } from '../../../domain/providerFeedback.ts';

/** One provider set up, as the API shows it (never the secret itself). */
export interface FeedbackIntegration {
  provider: FeedbackProvider;
  /** '…' and the secret's last 4 characters. */
  secret_hint: string;
  /** The URL to give the provider: `<PUBLIC_URL>/api/event/feedback/<provider>/<integration key>`. */
  webhook_url: string;
  /** ISO 8601 UTC. */
  updated_at: string;
}

interface Row {
  provider: FeedbackProvider;
  secret: string;
  updated_at: Date | string;
  integration_key: string;
}

const shown = (r: Row, publicUrl: string): FeedbackIntegration => ({
  provider: r.provider,
  secret_hint: `…${r.secret.slice(-4)}`,
  webhook_url: `${publicUrl}/api/event/feedback/${r.provider}/${r.integration_key}`,
  updated_at: new Date(r.updated_at).toISOString(),
});

const SELECT = `SELECT f.provider, f.secret, f.updated_at, p.integration_key
  FROM feedback_integrations f JOIN projects p ON p.id = f.project_id WHERE f.project_id = $1`;

/** listFeedbackIntegrations: project $projectId's providers, by name. */
export async function listFeedbackIntegrations(query: QueryFn, projectId: string, publicUrl: string): Promise<FeedbackIntegration[]> {
  return (await query<Row>(`${SELECT} ORDER BY f.provider`, [projectId])).map((r) => shown(r, publicUrl));
}

/** setFeedbackIntegration sets (or replaces) a provider's secret for a project; returns it as shown. */
export async function setFeedbackIntegration(
  query: QueryFn,
  projectId: string,
  provider: FeedbackProvider,
  secret: string,
  publicUrl: string,
): Promise<FeedbackIntegration> {
  await query(
    `INSERT INTO feedback_integrations (project_id, provider, secret) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, provider) DO UPDATE SET secret = EXCLUDED.secret, updated_at = now()`,
    [projectId, provider, secret.trim()],
  );
  const [row] = await query<Row>(`${SELECT} AND f.provider = $2`, [projectId, provider]);
  return shown(row, publicUrl);
}

/** removeFeedbackIntegration: true when the provider was set up for the project. */
export async function removeFeedbackIntegration(query: QueryFn, projectId: string, provider: FeedbackProvider): Promise<boolean> {
  return (await query(`DELETE FROM feedback_integrations WHERE project_id = $1 AND provider = $2 RETURNING 1`, [projectId, provider])).length > 0;
}

/** feedbackSecret: the secret a provider's webhooks must prove for the project, or undefined when not set up. */
export async function feedbackSecret(query: QueryFn, projectId: string, provider: FeedbackProvider): Promise<string | undefined> {
  const [row] = await query<{ secret: string }>(`SELECT secret FROM feedback_integrations WHERE project_id = $1 AND provider = $2`, [projectId, provider]);
  return row?.secret;
}
