/**
 * A sending domain's DMARC results on Domain Settings (GET /domains/{id}/dmarc): what receivers' aggregate reports
 * (RFC 7489 §7.2) said over the last 30 days — the share of mail that passed DMARC, DKIM and SPF, a daily chart of
 * passing and failing messages with its table, and the sources that send as the domain, failing ones first, this
 * install's relays named — and the next step of the policy (p=none → quarantine → reject). Before any report: the
 * rua address to add to the DMARC record. The chart is loaded lazily with @mui/x-charts.
 */
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { Alert, Box, Chip, CircularProgress, Table, TableBody, TableCell, TableContainer, TableHead, TableRow, Typography } from '@mui/material';
import type { components } from '../../../generated/types/domains.gen';
import { callOperation } from '../data/gateway';
import { formatRate } from '../../domain/reports';

type DmarcReport = components['schemas']['DmarcReport'];

const DmarcChart = lazy(() => import('./DmarcChart').then((m) => ({ default: m.DmarcChart })));

/** The window the section shows, in UTC days. */
const DAYS = 30;

/** The sources listed (failing first, as the server orders them). */
const SOURCES_SHOWN = 10;

/** SourcesTable lists the sending sources: address, whether it is one of ours, messages and DMARC pass rate. */
function SourcesTable({ sources, domain }: { sources: DmarcReport['sources']; domain: string }) {
  const shown = sources.slice(0, SOURCES_SHOWN);
  return (
    <TableContainer sx={{ maxWidth: '100%', overflowX: 'auto' }}>
      <Table size="small" aria-label={`Sources sending as ${domain}`} data-testid={`dmarc-sources-${domain}`}>
        <TableHead>
          <TableRow>
            <TableCell component="th" scope="col">
              Source
            </TableCell>
            <TableCell component="th" scope="col" align="right">
              Messages
            </TableCell>
            <TableCell component="th" scope="col" align="right">
              DMARC pass
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {shown.map((s) => (
            <TableRow key={s.source_ip}>
              <TableCell component="th" scope="row" sx={{ overflowWrap: 'anywhere' }}>
                <Box component="span" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
                  {s.source_ip}
                </Box>
                <Typography variant="caption" component="div" color="text.secondary">
                  {s.relay
                    ? `This service’s relay ${s.relay}`
                    : s.pass_rate < 1
                      ? `Not ours; signed by ${s.dkim_domain ?? 'nobody'}`
                      : `Signed by ${s.dkim_domain ?? '—'}`}
                </Typography>
              </TableCell>
              <TableCell align="right">{s.messages.toLocaleString('en-US')}</TableCell>
              <TableCell align="right">
                <Chip size="small" color={s.pass_rate < 1 ? 'error' : 'success'} label={formatRate(s.pass_rate)} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** DmarcSection is one domain's DMARC results (see the module's comment); `id` and `domain` name the domain. */
export function DmarcSection({ id, domain }: { id: string; domain: string }) {
  const [report, setReport] = useState<DmarcReport | undefined>();
  const [error, setError] = useState<string | undefined>();
  const load = useCallback(async () => {
    try {
      const { data } = await callOperation('getDmarcReport', { path: { id }, query: { days: DAYS } });
      setReport(data);
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [id]);
  useEffect(() => {
    void load();
  }, [load]);

  const failing = report?.sources.filter((s) => s.pass_rate < 1) ?? [];
  return (
    <Box component="section" aria-label={`DMARC reports for ${domain}`} sx={{ mt: 3 }} data-testid={`dmarc-${domain}`}>
      <Typography variant="subtitle1" component="h3" sx={{ mb: 1 }}>
        DMARC reports (last {DAYS} days)
      </Typography>
      {error ? (
        <Alert severity="error">Couldn’t fetch DMARC reports: {error}</Alert>
      ) : !report ? (
        <Box role="status" sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
          <CircularProgress size={16} aria-hidden />
          <Typography variant="body2">Loading DMARC reports…</Typography>
        </Box>
      ) : report.totals.messages === 0 ? (
        <Alert severity="info" data-testid={`dmarc-empty-${domain}`}>
          No DMARC reports yet — add rua={report.rua} to your DMARC record, and receivers will send a daily report of who sends mail as {domain}.
        </Alert>
      ) : (
        <>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'baseline', mb: 1 }}>
            <Typography variant="h5" component="p" data-testid={`dmarc-pass-rate-${domain}`}>
              {formatRate(report.dmarc_pass_rate)} passed DMARC
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {report.totals.messages.toLocaleString('en-US')} messages in {report.reports} {report.reports === 1 ? 'report' : 'reports'}; DKIM{' '}
              {formatRate(report.dkim_pass_rate)}, SPF {formatRate(report.spf_pass_rate)}
              {report.totals.quarantined ? `; ${report.totals.quarantined.toLocaleString('en-US')} quarantined` : ''}
              {report.totals.rejected ? `; ${report.totals.rejected.toLocaleString('en-US')} rejected` : ''}
            </Typography>
          </Box>
          <Suspense fallback={<Typography variant="body2">Loading chart…</Typography>}>
            <DmarcChart daily={report.daily} domain={domain} />
          </Suspense>
          {failing.length > 0 && (
            <Alert severity="warning" sx={{ my: 1 }}>
              {failing.length} {failing.length === 1 ? 'source' : 'sources'} sent mail as {domain} that failed DMARC. If one is a service of yours, sign its
              mail with DKIM for {domain}; if not, it is someone else using your domain.
            </Alert>
          )}
          <SourcesTable sources={report.sources} domain={domain} />
        </>
      )}
      {report && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }} data-testid={`dmarc-advice-${domain}`}>
          {report.policy.advice}
        </Typography>
      )}
    </Box>
  );
}
