/**
 * Domain Settings (/account/domains; spec part 2 §2 Sending domains, §3 Domain settings, §5 Domain, §7, §8 texts): the project's sending domains with their DKIM, SPF and DMARC status, a form to add one, and each
 * domain's DNS records ready to copy, with the advice to verify before sending more than 100 emails and the DMARC
 * progression p=none → quarantine → reject with what receivers' DMARC aggregate reports say (DmarcSection), and its bounce subdomain's MX and SPF records. Statuses come from the server's periodic DNS check; Refresh re-reads them.
 */
import { useCallback, useState, type FormEvent } from 'react';
import { useNotify } from 'react-admin';
import { Alert, Box, Button, Chip, LinearProgress, Stack, TextField, Typography } from '@mui/material';
import type { components } from '../../../generated/types/domains.gen';
import { callOperation } from '../data/gateway';
import { getSession } from '../session';
import { sendingDomainError, DKIM_FAILED_TEXT } from '../../domain/sendingDomain';
import { CopyField } from './CopyField';
import { screensByName } from '../../../generated/screens.gen';
import { ManagedList } from '../resources/shared/ManagedList';
import { formatDateTime } from '../dates';
import { DmarcSection } from './DmarcSection';

type Domain = components['schemas']['Domain'];
type Status = Domain['DkimVerificationStatus'];

/** The wording of a record's status: Failed DKIM reads as the spec's 'DNS settings not found'. */
function statusLabel(status: Status, record: 'DKIM' | 'SPF' | 'DMARC'): string {
  if (status === 'Success') return `${record}: verified`;
  if (status === 'Failed') return record === 'DKIM' ? `${record}: ${DKIM_FAILED_TEXT}` : `${record}: not found`;
  return `${record}: checking…`;
}

/**
 * BounceSection shows a domain's bounce subdomain: whether bounces and complaints come back yet, its MX
 * and SPF records ready to copy with their status, and a field to choose another subdomain.
 */
function BounceSection({ d, onSaved }: { d: Domain; onSaved: () => Promise<void> }) {
  const notify = useNotify();
  const [value, setValue] = useState(d.bounce_domain);
  const [saving, setSaving] = useState(false);
  const mx = d.records.bounce_mx;
  const spf = d.records.bounce_spf;
  const label = (status: Status, what: string) =>
    status === 'Success' ? `${what}: verified` : status === 'Failed' ? `${what}: not found` : `${what}: checking…`;
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    try {
      await callOperation('setBounceDomain', { path: { id: d.id }, body: { bounce_domain: value.trim() } });
      notify('Bounce subdomain saved; its records are being checked', { type: 'success' });
      await onSaved();
    } catch (e) {
      notify(`Couldn’t save the bounce subdomain: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setSaving(false);
    }
  };
  return (
    <Box sx={{ mt: 3 }} data-testid={`bounces-${d.domain}`}>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
        <Typography variant="subtitle1" component="h3" sx={{ mr: 1 }}>
          Bounces and complaints
        </Typography>
        <Chip size="small" color={COLOR[mx.status]} label={label(mx.status, 'Bounce MX')} />
        <Chip size="small" color={COLOR[spf.status]} label={label(spf.status, 'Bounce SPF')} />
      </Box>
      {d.bounces_ready ? (
        <Alert severity="success" sx={{ mb: 2 }}>
          Bounces and complaints are coming back: every email from {d.domain} carries its own return path at {d.bounce_domain}, whatever relay sends it.
        </Alert>
      ) : (
        <Alert severity="warning" sx={{ mb: 2 }}>
          Bounces are not coming back yet. Publish the MX and SPF records of {d.bounce_domain} below; until they verify, bounces and complaint reports go to
          your sender personas’ inboxes, and hard-bounced addresses keep being mailed.
        </Alert>
      )}
      <Stack spacing={2}>
        <Box sx={{ display: 'grid', gap: 1, gridTemplateColumns: { md: '2fr 2fr 1fr' } }}>
          <CopyField id={`${d.domain}-bounce-mx-name`} label="MX name" value={mx.name} />
          <CopyField id={`${d.domain}-bounce-mx-value`} label="MX mail server" value={mx.value} />
          <CopyField id={`${d.domain}-bounce-mx-priority`} label="MX priority" value={String(mx.priority)} />
        </Box>
        <Box sx={{ display: 'grid', gap: 1, gridTemplateColumns: { md: '2fr 3fr' } }}>
          <CopyField id={`${d.domain}-bounce-spf-name`} label="Bounce SPF TXT name" value={spf.name} />
          <CopyField id={`${d.domain}-bounce-spf-value`} label="Bounce SPF TXT value" value={spf.value} />
        </Box>
        <Box component="form" onSubmit={save} noValidate sx={{ display: 'flex', gap: 2, alignItems: 'flex-start', flexWrap: 'wrap' }}>
          <TextField
            id={`${d.domain}-bounce-domain`}
            label="Bounce subdomain"
            size="small"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            helperText={`A subdomain of ${d.domain}; empty for bounces.${d.domain}`}
          />
          <Button type="submit" variant="outlined" disabled={saving || value.trim() === d.bounce_domain}>
            {saving ? 'Saving…' : 'Save'}
          </Button>
        </Box>
      </Stack>
    </Box>
  );
}

/** Shown when the session has no company or project name (spec part 2 §8). */
const NO_SESSION_NAMES = 'Couldn’t get dkim info, please try logging out and back in again';

const COLOR: Record<Status, 'success' | 'error' | 'default'> = { Success: 'success', Failed: 'error', Pending: 'default' };

/**
 * WarmupLine tells where the domain is in its warm-up (core/sending/dailyCaps.ts): its day, today's cap
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

/**
 * BlocksLine shows the domain's emails receivers refused in the last 24 hours for a reason of the sender's
 * (blocklists, policy; core/feedback/blocks.ts): how many, per relay, and the receiver's last words. Nothing when none.
 */
function BlocksLine({ b, domain }: { b: Domain['blocks_24h']; domain: string }) {
  if (!b.count) return null;
  const relays = b.by_relay.length > 1 ? ` (${b.by_relay.map((r) => `${r.relay}: ${r.count.toLocaleString('en-US')}`).join(', ')})` : '';
  return (
    <Alert severity="warning" sx={{ mb: 2 }} data-testid={`blocks-${domain}`}>
      <Typography variant="body2">
        Receivers refused {b.count.toLocaleString('en-US')} {b.count === 1 ? 'email' : 'emails'} from {domain} in the last 24 hours because of the sender
        {relays}, not the recipient: these addresses are not suppressed. Check the blocklist or policy the receiver names.
      </Typography>
      {b.last && (
        <Typography variant="body2" sx={{ mt: 1, fontFamily: 'monospace', wordBreak: 'break-word' }}>
          Last ({formatDateTime(b.last.at)}): {b.last.diagnostic}
        </Typography>
      )}
    </Alert>
  );
}

/** DomainCard is one domain: its record statuses with Refresh, warm-up, blocks, DNS records to copy and bounce subdomain. */
/**
 * SpfAdvice: a domain may publish one SPF record; a second makes SPF fail for all of its mail (RFC 7208 §3.2). When
 * the last DNS check found one, the value above is ours merged into it (the server's mergeSpf), to replace it with.
 */
function SpfAdvice({ d }: { d: Domain }) {
  const { found, value } = d.records.spf;
  let advice: React.ReactNode;
  if (!found?.length)
    advice = (
      <Alert severity="info">
        Publish this as the domain&apos;s only SPF record. If {d.domain} gets another SPF record later (for another email service), merge the two into one: two
        SPF records make receivers fail SPF for all of its mail.
      </Alert>
    );
  else if (found.length === 1 && found[0] === value) advice = null;
  else
    advice = (
      <Alert severity="warning" data-testid={`${d.domain}-spf-merge`}>
        {found.length === 1
          ? `${d.domain} already publishes an SPF record: `
          : `${d.domain} publishes ${found.length} SPF records, so SPF fails for all of its mail: `}
        {found.map((r) => (
          <Box key={r} component="code" sx={{ display: 'block', wordBreak: 'break-all' }}>
            {r}
          </Box>
        ))}
        Do not add a second one: replace {found.length === 1 ? 'it' : 'them'} with the merged record above, which keeps the senders it lists and adds this
        service.
      </Alert>
    );
  return advice ? <Box sx={{ gridColumn: { md: '1 / -1' } }}>{advice}</Box> : null;
}

/** DkimStrings: the DKIM value split into 255-character strings, for DNS consoles that refuse longer ones. */
function DkimStrings({ d }: { d: Domain }) {
  return (
    <Box sx={{ gridColumn: { md: '2 / 3' } }}>
      <CopyField id={`${d.domain}-dkim-strings`} label="DKIM TXT value, split into 255-character strings" value={d.records.dkim.strings ?? ''} multiline />
      <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
        A TXT string holds at most 255 characters and this key is longer. Most DNS consoles split it for you: paste the value above. If yours refuses it, paste
        this split form; DNS joins the quoted parts back into one value.
      </Typography>
    </Box>
  );
}

function DomainCard({ d, reload }: { d: Domain; reload: () => Promise<void> }) {
  return (
    <>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 2 }}>
        <Typography variant="h6" component="h2" sx={{ mr: 1 }}>
          {d.domain}
        </Typography>
        <Chip size="small" color={COLOR[d.records.dkim.status]} label={statusLabel(d.records.dkim.status, 'DKIM')} />
        <Chip size="small" color={COLOR[d.records.spf.status]} label={statusLabel(d.records.spf.status, 'SPF')} />
        <Chip size="small" color={COLOR[d.records.dmarc.status]} label={statusLabel(d.records.dmarc.status, 'DMARC')} />
        <Typography variant="body2" color="text.secondary" sx={{ ml: 'auto' }}>
          {d.checked_at ? `Checked ${formatDateTime(d.checked_at)}` : 'Not checked yet'}
        </Typography>
        <Button size="small" onClick={() => void reload()}>
          Refresh
        </Button>
      </Box>
      <WarmupLine w={d.warmup} domain={d.domain} />
      <BlocksLine b={d.blocks_24h} domain={d.domain} />
      <Stack spacing={2}>
        {(['dkim', 'spf', 'dmarc'] as const).map((kind) => (
          <Box key={kind} sx={{ display: 'grid', gap: 1, gridTemplateColumns: { md: '2fr 3fr' } }}>
            <CopyField id={`${d.domain}-${kind}-name`} label={`${kind.toUpperCase()} TXT name`} value={d.records[kind].name} />
            <CopyField id={`${d.domain}-${kind}-value`} label={`${kind.toUpperCase()} TXT value`} value={d.records[kind].value} multiline={kind === 'dkim'} />
            {kind === 'dkim' && <DkimStrings d={d} />}
            {kind === 'spf' && <SpfAdvice d={d} />}
          </Box>
        ))}
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
        DMARC: start with p=none; receivers then send their aggregate reports to the rua address, at {d.bounce_domain}, and this page sums them. Once nearly all
        mail passes, move to p=quarantine, then to p=reject.
      </Typography>
      <DmarcSection id={d.id} domain={d.domain} />
      <BounceSection d={d} onSaved={reload} />
    </>
  );
}

/** The domain check as typed (the server's own rule, domain/sendingDomain.ts). */
const checkDomainField = (data: Record<string, unknown>) => ({ domain: sendingDomainError(data.domain) });

/**
 * DomainsPage is /account/domains: the list and the add form come from getDkimSettings' `x-screen` (ManagedList), each
 * domain drawn by DomainCard. Calls carry the session's company and project names; without them the spec's text shows.
 */
export function DomainsPage() {
  const session = getSession();
  const company_name = session?.company.name;
  const project_name = session?.project.name;
  const list = useCallback(() => ({ query: { company_name, project_name } }), [company_name, project_name]);
  if (!company_name || !project_name) return <Alert severity="error">{NO_SESSION_NAMES}</Alert>;
  return (
    <ManagedList
      definition={screensByName.domains}
      check={checkDomainField}
      requests={{ list, create: (data) => ({ body: { domain: String(data.domain ?? '').trim(), company_name, project_name } }) }}
      renderCard={(row, reload) => <DomainCard d={row as unknown as Domain} reload={reload} />}
    />
  );
}
