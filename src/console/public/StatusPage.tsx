/**
 * /status: whether the service is up, from the browser, now: it asks the server that served the page for /healthz and
 * /readyz (src/server/plugins/health.ts) every 30 seconds and says "All systems operational", "Degraded" (naming the
 * part and the server's reason) or a major outage (statusModel.ts).
 */
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { pageTitle, usePageMeta } from './pageMeta';
import { PublicLayout } from './PublicLayout';
import { statusOf, type Answer, type Status } from './statusModel';

/** How often the page asks again (ms). */
const REFRESH_MS = 30_000;

/** ask GETs `path` on this origin and answers its status and JSON body, or null when it does not answer. */
async function ask(path: string): Promise<Answer> {
  try {
    const res = await fetch(path, { cache: 'no-store', headers: { accept: 'application/json' } });
    return { status: res.status, body: await res.json().catch(() => null) };
  } catch {
    return null;
  }
}

/** StatusPage shows the service's health, checked live. */
export function StatusPage() {
  usePageMeta(
    pageTitle('Status'),
    'Whether Mailwright is up right now: the website, console and API, the database, the job queue and the schema, checked live.',
  );
  const [status, setStatus] = useState<Status | null>(null);
  const [checkedAt, setCheckedAt] = useState<Date | null>(null);

  const check = useCallback(async () => {
    const [health, ready] = await Promise.all([ask('/healthz'), ask('/readyz')]);
    setStatus(statusOf(health, ready));
    setCheckedAt(new Date());
  }, []);

  useEffect(() => {
    // The first check's answer arrives after this effect, so setState happens in a callback, not during it.
    const first = setTimeout(() => void check(), 0);
    const timer = setInterval(() => void check(), REFRESH_MS);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [check]);

  return (
    <PublicLayout>
      <div className="mw-prose">
        <p className="mw-eyebrow">Status</p>
        <h1 className="mw-page-title">Service status</h1>
        <div className={`mw-status mw-status-${status?.overall ?? 'checking'}`} role="status" aria-live="polite" data-testid="status-headline">
          <span className="mw-status-dot" aria-hidden="true" />
          {status ? status.headline : 'Checking…'}
        </div>
        {status && (
          <ul className="mw-status-list" aria-label="Parts of the service">
            {status.components.map((c) => (
              <li key={c.name}>
                <span className={`mw-status-dot ${c.ok ? 'mw-ok' : 'mw-bad'}`} aria-hidden="true" />
                <span className="mw-status-name">{c.name}</span>
                <span className={c.ok ? 'mw-status-ok' : 'mw-status-bad'}>{c.ok ? 'Operational' : `Not working: ${c.problem}`}</span>
              </li>
            ))}
          </ul>
        )}
        <p className="mw-updated">
          {checkedAt ? `Checked at ${checkedAt.toLocaleTimeString()} from your browser; checked again every 30 seconds.` : 'Asking the server…'}{' '}
          <button type="button" className="mw-linkbutton" onClick={() => void check()}>
            Check now
          </button>
        </p>
        <h2>What this page checks</h2>
        <p>
          This page asks the server that sent it whether it is serving requests (<code>/healthz</code>) and whether it can do its work (<code>/readyz</code>):
          the database answers within two seconds, the job queue that runs scheduled blasts, imports and workflows is in place, and the database schema is up to
          date. The state of each SMTP relay — its pace, today’s count and whether it is refusing mail — is answered to your project by the API’s{' '}
          <code>sending_status</code> endpoint.
        </p>
        <p>
          Something wrong that this page does not show? <Link to="/contact-us">Tell us</Link>.
        </p>
      </div>
    </PublicLayout>
  );
}
