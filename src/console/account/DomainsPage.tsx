/**
 * Domain Settings (/account/domains; spec part 2 §2 Sending domains, §3 Domain settings, §5 Domain, §7, §8 texts;
 * issue 4 §5): the project's sending domains with their DKIM, SPF and DMARC status, a form to add one, and each
 * domain's DNS records ready to copy, with the advice to verify before sending more than 100 emails and the DMARC
 * progression p=none → quarantine → reject. Statuses come from the server's periodic DNS check; Refresh re-reads them.
 */
import { LoadStatus } from './LoadStatus';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useNotify } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, Chip, LinearProgress, Stack, TextField, Typography } from '@mui/material';
import type { components } from '../../../generated/types/domains.gen';
import { callOperation } from '../data/gateway';
import { getSession } from '../session';
import { sendingDomainError, DKIM_FAILED_TEXT } from '../../domain/sendingDomain';
import { CopyField } from './CopyField';

type Domain = components['schemas']['Domain'];
type Status = Domain['DkimVerificationStatus'];

/** The wording of a record's status: Failed DKIM reads as the spec's 'DNS settings not found'. */
function statusLabel(status: Status, record: 'DKIM' | 'SPF' | 'DMARC'): string {
  if (status === 'Success') return `${record}: verified`;
  if (status === 'Failed') return record === 'DKIM' ? `${record}: ${DKIM_FAILED_TEXT}` : `${record}: not found`;
  return `${record}: checking…`;
}

/** Shown when the session has no company or project name (spec part 2 §8). */
const NO_SESSION_NAMES = 'Couldn’t get dkim info, please try logging out and back in again';

const COLOR: Record<Status, 'success' | 'error' | 'default'> = { Success: 'success', Failed: 'error', Pending: 'default' };

/**
 * WarmupLine tells where the domain is in its warm-up (issue 21 §5; core/sending/dailyCaps.ts): its day, today's cap
 * and use as a bar, or that the warm-up starts with its first email, is complete, or is off.
 */
function WarmupLine({ w, domain }: { w: Domain['warmup']; domain: string }) {
  const text =
    w.days === 0
      ? 'Warm-up: off'
      : w.day === null
        ? `Warm-up: starts with the first email from this domain; day 1 sends up to ${w.cap_today!.toLocaleString('en-US')} blast and workflow emails.`
        : w.active
          ? `Warm-up: day ${w.day} of ${w.days}. ${w.sent_today.toLocaleString('en-US')} of today’s ${w.cap_today!.toLocaleString('en-US')} emails sent (UTC day).`
          : `Warm-up complete (${w.days} days): no daily cap. ${w.sent_today.toLocaleString('en-US')} emails sent today (UTC).`;
  return (
    <Box sx={{ mb: 2 }} data-testid={`warmup-${domain}`}>
      <Typography variant="body2">{text}</Typography>
      {w.active && w.day !== null && w.cap_today !== null && (
        <>
          <LinearProgress
            variant="determinate"
            value={Math.min(100, (100 * w.sent_today) / w.cap_today)}
            aria-label={`Warm-up use today: ${w.sent_today} of ${w.cap_today}`}
            sx={{ my: 0.5, maxWidth: 360 }}
          />
          <Typography variant="caption" color="text.secondary">
            Emails over today’s cap wait for the next UTC day and are shown as deferred; none are lost. Test emails and single sends always go.
          </Typography>
        </>
      )}
    </Box>
  );
}

/** DomainsPage is /account/domains. */
export function DomainsPage() {
  const notify = useNotify();
  const session = getSession();
  const companyName = session?.company.name;
  const projectName = session?.project.name;
  const [domains, setDomains] = useState<Domain[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [domain, setDomain] = useState('');
  const [touched, setTouched] = useState(false);
  const [adding, setAdding] = useState(false);

  const load = useCallback(async () => {
    if (!companyName || !projectName) {
      setLoadError(NO_SESSION_NAMES);
      return;
    }
    setLoadError('');
    try {
      const query = { company_name: companyName, project_name: projectName };
      setDomains((await callOperation('getDkimSettings', { query }, { retries: 2, delayMs: 250 })).data);
    } catch (e) {
      const text = `Couldn’t fetch dkim settings: ${(e as Error).message}`;
      setLoadError(text);
      notify(text, { type: 'error' });
    }
  }, [notify, companyName, projectName]);

  useEffect(() => {
    void load();
  }, [load]);

  const invalid = sendingDomainError(domain);
  const add = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (adding || invalid) return;
    if (!companyName || !projectName) {
      notify(NO_SESSION_NAMES, { type: 'error' });
      return;
    }
    setAdding(true);
    try {
      await callOperation('addDomain', { body: { domain: domain.trim(), company_name: companyName, project_name: projectName } });
      notify('Successfully added domain', { type: 'success' });
      setDomain('');
      setTouched(false);
      await load();
    } catch (e) {
      notify(`Couldn’t add domain: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setAdding(false);
    }
  };

  return (
    <Stack spacing={2}>
      <Typography variant="h5" component="h1">
        Domain Settings
      </Typography>
      <Alert severity="info">
        Verify your domain before sending more than 100 emails: publish the DKIM, SPF and DMARC records below at your DNS provider. Mail from a sender persona
        on a verified domain is signed with its DKIM key, which mailbox providers need to trust it.
      </Alert>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Add a domain
          </Typography>
          <Box component="form" onSubmit={add} noValidate sx={{ display: 'flex', gap: 2, alignItems: 'flex-start', flexWrap: 'wrap' }}>
            <TextField
              id="domain-name"
              label="Domain"
              placeholder="mail.example.com"
              value={domain}
              required
              onChange={(e) => setDomain(e.target.value)}
              onBlur={() => setTouched(true)}
              error={touched && !!invalid}
              helperText={touched && invalid ? invalid : 'The part after the @ of your sender personas’ addresses'}
            />
            <Button type="submit" variant="contained" disabled={adding} sx={{ mt: 1 }}>
              {adding ? 'Adding…' : 'Add domain'}
            </Button>
          </Box>
        </CardContent>
      </Card>
      <LoadStatus
        rows={domains}
        error={loadError}
        onRetry={() => void load()}
        loadingLabel="Loading domains"
        emptyText="No domains yet. Add the domain your sender personas send from."
      />
      {domains?.map((d) => (
        <Card key={d.id} data-testid={`domain-${d.domain}`}>
          <CardContent>
            <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 2 }}>
              <Typography variant="h6" component="h2" sx={{ mr: 1 }}>
                {d.domain}
              </Typography>
              <Chip size="small" color={COLOR[d.records.dkim.status]} label={statusLabel(d.records.dkim.status, 'DKIM')} />
              <Chip size="small" color={COLOR[d.records.spf.status]} label={statusLabel(d.records.spf.status, 'SPF')} />
              <Chip size="small" color={COLOR[d.records.dmarc.status]} label={statusLabel(d.records.dmarc.status, 'DMARC')} />
              <Typography variant="body2" color="text.secondary" sx={{ ml: 'auto' }}>
                {d.checked_at ? `Checked ${d.checked_at.slice(0, 16).replace('T', ' ')} UTC` : 'Not checked yet'}
              </Typography>
              <Button size="small" onClick={() => void load()}>
                Refresh
              </Button>
            </Box>
            <WarmupLine w={d.warmup} domain={d.domain} />
            <Stack spacing={2}>
              {(['dkim', 'spf', 'dmarc'] as const).map((kind) => (
                <Box key={kind} sx={{ display: 'grid', gap: 1, gridTemplateColumns: { md: '2fr 3fr' } }}>
                  <CopyField id={`${d.domain}-${kind}-name`} label={`${kind.toUpperCase()} TXT name`} value={d.records[kind].name} />
                  <CopyField
                    id={`${d.domain}-${kind}-value`}
                    label={`${kind.toUpperCase()} TXT value`}
                    value={d.records[kind].value}
                    multiline={kind === 'dkim'}
                  />
                </Box>
              ))}
            </Stack>
            <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
              DMARC: start with p=none and read the aggregate reports; once they show only your own mail, move to p=quarantine, then to p=reject.
            </Typography>
          </CardContent>
        </Card>
      ))}
    </Stack>
  );
}
