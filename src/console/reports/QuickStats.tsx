/**
 * The quick-stat cards of the Statistics and Issues pages (spec part 1 §2 Insights and reports, §3 Quick-stat rows,
 * §9 Rates): Sends, Opens, Clicks, Unsubscribes, Complaints, Bounces in that order, each with its number of events
 * and of unique emails; every card but Sends shows its rate (unique of that event / unique sends), and two more show
 * click per open and open per click; a rate is N/A when its divisor is 0.
 */
import { useId } from 'react';
import { Box, Card, CardContent, Typography } from '@mui/material';
import { QUICK_STAT_CARDS, formatRate, quickStatRates } from '../../domain/reports';
import { ReportStatus } from './ReportSection';
import { useReport } from './useReport';

const GRID = {
  display: 'grid',
  gap: 2,
  gridTemplateColumns: { xs: 'repeat(2, minmax(0, 1fr))', sm: 'repeat(3, minmax(0, 1fr))', lg: 'repeat(4, minmax(0, 1fr))' },
};

/** StatCard is one quick-stat card: a region named by its label, with the figures under it. */
function StatCard({ label, value, lines }: { label: string; value: string; lines: string[] }) {
  const headingId = useId();
  return (
    <Card variant="outlined" component="section" aria-labelledby={headingId}>
      <CardContent>
        <Typography id={headingId} variant="subtitle2" component="h3" color="text.secondary">
          {label}
        </Typography>
        <Typography variant="h5" component="p">
          {value}
        </Typography>
        {lines.map((line) => (
          <Typography key={line} variant="body2">
            {line}
          </Typography>
        ))}
      </CardContent>
    </Card>
  );
}

/** QuickStats reads quickstats for `campaignId` (undefined: every campaign) and shows the cards and rates. */
export function QuickStats({ campaignId }: { campaignId?: string }) {
  const state = useReport('getQuickStats', { campaign_id: campaignId }, "Couldn't fetch quick stats / report data");
  const headingId = useId();
  const title = 'Quick stats';
  const status = ReportStatus({ title, state, empty: 'No data' });
  let body = status;
  if (!status) {
    const rates = quickStatRates(state.rows);
    const row = (name: string) => state.rows.find((r) => r.name === name) ?? { num: 0, num_unique: 0 };
    body = (
      <Box sx={GRID}>
        {QUICK_STAT_CARDS.map((card) => {
          const { num, num_unique } = row(card.name);
          const lines = [`Unique: ${num_unique}`];
          if (card.column !== 'sends') lines.push(`Rate: ${formatRate(rates.perSend[card.label])}`);
          return <StatCard key={card.label} label={card.label} value={String(num)} lines={lines} />;
        })}
        <StatCard label="Click per open" value={formatRate(rates.clickPerOpen)} lines={['Unique clicks / unique opens']} />
        <StatCard label="Open per click" value={formatRate(rates.openPerClick)} lines={['Unique opens / unique clicks']} />
      </Box>
    );
  }
  return (
    <Box component="section" aria-labelledby={headingId} sx={{ mb: 2 }}>
      <Typography id={headingId} variant="h6" component="h2">
        {title}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        All time. Unique counts emails (one message to one recipient); a rate is unique events per unique send.
      </Typography>
      {body}
    </Box>
  );
}
