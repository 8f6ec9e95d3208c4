/**
 * The Statistics page at /insights/stats (spec part 1 §2 Insights and reports, §7 reporting calls, §8 Reports, §9
 * report limits; part 2 §2 Campaigns: /insights/stats?campaign_id={id}): a campaign filter kept in the URL as
 * campaign_id (clearing it removes it), the quick-stat cards, an A/B test campaign's Variants, a campaign's
 * Send-time optimisation panel (when it sent emails at each contact's best hour),
 * most-clicked links, most-opened templates by subject (10), recently clicked links (5), recently opened emails (10),
 * opens and clicks by device group and by domain, and the daily series of the last 31 days with the four issue
 * columns hidden unless the URL's deselected_columns1 says otherwise. Each section has its own loading, error and
 * empty state.
 */
import { REASON_LABELS, readableSubject } from '../../domain/reports';
import { lazy, Suspense } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Box, Button, Card, Stack, Typography } from '@mui/material';
import { REPORT_LIMITS } from '../../domain/reports';
import { formatOccurred } from '../pages/InsightsPage';
import { AbVariants } from './AbVariants';
import { CampaignFilter } from './CampaignFilter';
import { QuickStats } from './QuickStats';
import { SendTimeOptimisation } from './SendTimeOptimisation';
import { ReportSection } from './ReportSection';
import { ReportLink, ReportTable } from './ReportTable';
import { useCampaignParam, useDeselectedParam } from './urlParams';
import { useReport } from './useReport';

const SendsChart = lazy(() => import('../pages/SendsChart'));
const DeviceChart = lazy(() => import('./SourceCharts').then((m) => ({ default: m.DeviceChart })));
const DomainChart = lazy(() => import('./SourceCharts').then((m) => ({ default: m.DomainChart })));
const SubjectPie = lazy(() => import('./SourceCharts').then((m) => ({ default: m.SubjectPie })));

const BY_SOURCE_FAILED = "Couldn't fetch by-source report data";
const MOST_OPENED_FAILED = "Couldn't fetch most-opened emails report data";

/** madeBy names who made a recent open or click: 'Person', or the machine's reason in words. */
function madeBy(machine: boolean, reason: string | null): string {
  if (!machine) return 'Person';
  return REASON_LABELS[reason ?? 'unknown'] ?? 'Machine';
}

const GRID = { display: 'grid', gap: 2, mb: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', lg: 'repeat(2, minmax(0, 1fr))' } };

function ChartFallback() {
  return <Box sx={{ minHeight: 200 }} />;
}

/** MostClickedLinks lists the links clicked most, with clicks and unique clicks. */
function MostClickedLinks({ campaignId }: { campaignId?: string }) {
  const state = useReport(
    'getMostClickedLinks',
    { campaign_id: campaignId, limit: REPORT_LIMITS.mostClickedLinks },
    "Couldn't fetch most-clicked-links report data",
  );
  return (
    <ReportSection title="Most-clicked links" state={state} empty="No links have been clicked for the given filters">
      {(rows) => (
        <ReportTable
          label="Most-clicked links"
          rows={rows}
          columns={[
            { label: 'Link', render: (r) => <ReportLink url={r.link_url} /> },
            { label: 'Clicks', render: (r) => r.num_clicks, numeric: true },
            { label: 'Unique clicks', render: (r) => r.num_unique_clicks, numeric: true },
          ]}
        />
      )}
    </ReportSection>
  );
}

/** RecentlyClickedLinks lists the 5 newest clicks. */
function RecentlyClickedLinks({ campaignId }: { campaignId?: string }) {
  const state = useReport(
    'getRecentlyClickedLinks',
    { campaign_id: campaignId, limit: REPORT_LIMITS.recentlyClickedLinks },
    "Couldn't fetch recently-clicked-links report data",
  );
  return (
    <ReportSection title="Recently clicked links" state={state} empty="No links have been clicked recently for the given filters">
      {(rows) => (
        <ReportTable
          label="Recently clicked links"
          rows={rows}
          columns={[
            { label: 'Link', render: (r) => <ReportLink url={r.link_url} /> },
            { label: 'Email', render: (r) => r.email ?? '' },
            { label: 'Occurred', render: (r) => formatOccurred(r.emitted_at), keepWords: true },
            { label: 'By', render: (r) => madeBy(r.bot, r.bot_reason), keepWords: true },
          ]}
        />
      )}
    </ReportSection>
  );
}

/** MostOpenedEmails lists the 10 subjects opened most (templates sharing a subject summed), with a pie of the top six. */
function MostOpenedEmails({ campaignId }: { campaignId?: string }) {
  const state = useReport('getMostOpenedEmails', { campaign_id: campaignId, by: 'email_subject', limit: REPORT_LIMITS.mostOpenedEmails }, MOST_OPENED_FAILED);
  return (
    <ReportSection title="Most-opened templates by subject" state={state} empty="No emails have been opened for the given filters">
      {(rows) => (
        <>
          <Suspense fallback={<ChartFallback />}>
            <SubjectPie rows={rows} />
          </Suspense>
          <ReportTable
            label="Most-opened templates by subject"
            rows={rows}
            columns={[
              { label: 'Subject', render: (r) => readableSubject(r.email_subject) },
              { label: 'Sends', render: (r) => r.num_sends, numeric: true },
              { label: 'Opens', render: (r) => r.num_opens, numeric: true },
              { label: 'Unique opens', render: (r) => r.num_unique_opens, numeric: true },
              { label: 'Clicks', render: (r) => r.num_clicks, numeric: true },
            ]}
          />
        </>
      )}
    </ReportSection>
  );
}

/** RecentlyOpenedEmails lists the 10 newest opens. */
function RecentlyOpenedEmails({ campaignId }: { campaignId?: string }) {
  const state = useReport('getRecentlyOpenedEmails', { campaign_id: campaignId, limit: REPORT_LIMITS.recentlyOpenedEmails }, MOST_OPENED_FAILED);
  return (
    <ReportSection title="Recently opened emails" state={state} empty="No emails have been opened for the given filters">
      {(rows) => (
        <ReportTable
          label="Recently opened emails"
          rows={rows}
          columns={[
            { label: 'Email', render: (r) => r.email ?? '' },
            { label: 'Subject', render: (r) => readableSubject(r.email_subject ?? '') },
            { label: 'Occurred', render: (r) => formatOccurred(r.emitted_at), keepWords: true },
            { label: 'By', render: (r) => madeBy(r.machine, r.machine_reason), keepWords: true },
          ]}
        />
      )}
    </ReportSection>
  );
}

/** OpensBySource charts opens and clicks by device group (by=user_agent) or by recipient domain (by=to_domain). */
function OpensBySource({ campaignId, by }: { campaignId?: string; by: 'user_agent' | 'to_domain' }) {
  const state = useReport('getOpensBySource', { campaign_id: campaignId, by, limit: REPORT_LIMITS.bySource }, BY_SOURCE_FAILED);
  const Chart = by === 'user_agent' ? DeviceChart : DomainChart;
  return (
    <ReportSection title={by === 'user_agent' ? 'Opens and clicks by device' : 'Opens and clicks by domain'} state={state} empty="No data">
      {(rows) => (
        <Suspense fallback={<ChartFallback />}>
          <Chart rows={rows} />
        </Suspense>
      )}
    </ReportSection>
  );
}

/** DailySeries is the last 31 days' series, its deselected columns kept in the URL as deselected_columns1. */
function DailySeries({ campaignId }: { campaignId?: string }) {
  const [deselected, setDeselected] = useDeselectedParam('deselected_columns1');
  return (
    <Suspense fallback={<Card variant="outlined" sx={{ minHeight: 120 }} />}>
      <SendsChart period="day" title="Daily sends, last 31 days" campaignId={campaignId} deselected={deselected} onDeselectedChange={setDeselected} />
    </Suspense>
  );
}

/** StatsPage renders /insights/stats. */
export function StatsPage() {
  const [campaignId] = useCampaignParam();
  return (
    <Box>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', gap: 1 }}>
        <Typography variant="h5" component="h1">
          Statistics
        </Typography>
        <Stack direction="row" spacing={1}>
          <Button
            variant="outlined"
            size="small"
            component={RouterLink}
            to={campaignId ? `/insights/issues?campaign_id=${encodeURIComponent(campaignId)}` : '/insights/issues'}
          >
            Issues
          </Button>
          <Button variant="outlined" size="small" component={RouterLink} to="/insights/analysis">
            Campaign analysis
          </Button>
        </Stack>
      </Stack>
      <CampaignFilter />
      <QuickStats campaignId={campaignId} />
      <Box sx={{ mb: 2 }}>
        <AbVariants campaignId={campaignId} />
      </Box>
      <Box sx={{ mb: 2, '&:empty': { display: 'none' } }}>
        <SendTimeOptimisation campaignId={campaignId} />
      </Box>
      <Box sx={GRID}>
        <MostClickedLinks campaignId={campaignId} />
        <RecentlyClickedLinks campaignId={campaignId} />
        <MostOpenedEmails campaignId={campaignId} />
        <RecentlyOpenedEmails campaignId={campaignId} />
        <OpensBySource campaignId={campaignId} by="user_agent" />
        <OpensBySource campaignId={campaignId} by="to_domain" />
      </Box>
      <DailySeries campaignId={campaignId} />
    </Box>
  );
}
