/**
 * The Issues report at /insights/issues (spec part 1 §2: "Query campaign_id and deselected_columns1 (comma list), read
 * on load and kept in the URL"; "The Issues report tracks unsuccessful_sends, complaints, bounces and unsubscribes for
 * the last month"; the Statistics and Issues pages show the quick-stat cards): a campaign filter, the quick-stat cards
 * and the daily chart of the four issue columns over the last 31 days (sendslast31days), every one shown unless the
 * URL's deselected_columns1 hides it.
 */
import { lazy, Suspense } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Box, Button, Card, Stack, Typography } from '@mui/material';
import { ISSUE_COLUMNS } from '../../domain/reports';
import { CampaignFilter } from './CampaignFilter';
import { QuickStats } from './QuickStats';
import { useCampaignParam, useDeselectedParam } from './urlParams';

const SendsChart = lazy(() => import('../pages/SendsChart'));

/** The Issues chart's columns: unsuccessful_sends (Failures), complaints, bounces and unsubscribes. */
const COLUMNS = ISSUE_COLUMNS;

/** IssuesPage renders /insights/issues. */
export function IssuesPage() {
  const [campaignId] = useCampaignParam();
  const [deselected, setDeselected] = useDeselectedParam('deselected_columns1', []);
  return (
    <Box>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', gap: 1 }}>
        <Typography variant="h5" component="h1">
          Issues
        </Typography>
        <Button
          variant="outlined"
          size="small"
          component={RouterLink}
          to={campaignId ? `/insights/stats?campaign_id=${encodeURIComponent(campaignId)}` : '/insights/stats'}
        >
          Statistics
        </Button>
      </Stack>
      <CampaignFilter />
      <QuickStats campaignId={campaignId} />
      <Suspense fallback={<Card variant="outlined" sx={{ minHeight: 120 }} />}>
        <SendsChart
          period="day"
          title="Issues in the last month"
          campaignId={campaignId}
          columns={COLUMNS}
          deselected={deselected.filter((c) => COLUMNS.includes(c))}
          onDeselectedChange={setDeselected}
        />
      </Suspense>
    </Box>
  );
}
