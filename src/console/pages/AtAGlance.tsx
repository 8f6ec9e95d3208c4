/**
 * Insights at a glance: the account's contacts, live campaigns and emails sent this month (UTC), and the newest
 * campaign's results — its unique sends and its open and click rates (people, as the Statistics page counts them).
 * Every figure is read from the gateways the other screens use (countUsers, countCampaignMetrics, listCampaigns, the
 * 31-day sends report, quickstats); nothing is counted here. Each card links to where the figure comes from; an empty
 * account's cards say what to do first.
 */
import { useEffect, useId, useState, type ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Box, Card, CardActionArea, CardContent, Skeleton, Typography } from '@mui/material';
import { DateTime } from 'luxon';
import { callOperation } from '../data/gateway';
import { formatRate, quickStatRates } from '../../domain/reports';
import { EVENT } from '../../domain/events.ts';

/** What the cards show; undefined while loading, null for a figure that could not be read. */
interface Glance {
  contacts: number | null;
  campaigns: number | null;
  sendsThisMonth: number | null;
  last: { id: string; name: string; sends: number; openRate: number | null; clickRate: number | null } | null;
}

/** sendsThisMonth sums the 31-day report's daily sends from the first day of the current UTC month. */
export function sendsThisMonth(rows: Array<{ emitted_at_trunc: string; sends: number }>, now: DateTime = DateTime.utc()): number {
  const start = now.toUTC().startOf('month').toMillis();
  return rows.filter((r) => Date.parse(r.emitted_at_trunc) >= start).reduce((sum, r) => sum + r.sends, 0);
}

/** settle turns a failed read into null, so one gateway's failure leaves the other cards shown. */
const settle = <T,>(p: Promise<T>): Promise<T | null> =>
  p.then(
    (v) => v,
    () => null,
  );

async function loadGlance(): Promise<Glance> {
  const [contacts, campaigns, newest, series] = await Promise.all([
    settle(callOperation('countUsers', {})),
    settle(callOperation('countCampaignMetrics', {})),
    settle(callOperation('listCampaigns', { query: { limit: 1 } })),
    settle(callOperation('getSendsLast31Days', {})),
  ]);
  const campaign = newest?.campaigns[0];
  let last: Glance['last'] = null;
  if (campaign) {
    const stats = await settle(callOperation('getQuickStats', { query: { campaign_id: String(campaign.id) } }));
    if (stats) {
      const rates = quickStatRates(stats.data);
      const sends = stats.data.find((r) => r.name === EVENT.sendSuccess)?.num_unique ?? 0;
      last = { id: String(campaign.id), name: String(campaign.name), sends, openRate: rates.perSend.Opens ?? null, clickRate: rates.perSend.Clicks ?? null };
    }
  }
  return {
    contacts: contacts?.num_users ?? null,
    campaigns: campaigns?.num_campaigns ?? null,
    sendsThisMonth: series ? sendsThisMonth(series.data) : null,
    last,
  };
}

/** GlanceCard: one figure, named by its heading, opening the screen it comes from. */
function GlanceCard({ label, to, children }: { label: string; to: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <Card variant="outlined" component="section" aria-labelledby={headingId}>
      <CardActionArea component={RouterLink} to={to} sx={{ height: '100%' }}>
        <CardContent>
          <Typography id={headingId} variant="subtitle2" component="h3" color="text.secondary">
            {label}
          </Typography>
          {children}
        </CardContent>
      </CardActionArea>
    </Card>
  );
}

const figure = (value: number | null | undefined) =>
  value === undefined ? (
    <Skeleton width={64} height={40} />
  ) : (
    <Typography variant="h4" component="p">
      {value === null ? '—' : value.toLocaleString()}
    </Typography>
  );

/** AtAGlance is the top of /insights: four cards, filled as their figures arrive. */
export function AtAGlance() {
  const [glance, setGlance] = useState<Glance | undefined>();
  useEffect(() => {
    let live = true;
    void loadGlance().then((g) => live && setGlance(g));
    return () => {
      live = false;
    };
  }, []);
  const headingId = useId();
  const last = glance?.last;
  return (
    <Box component="section" aria-labelledby={headingId} sx={{ mb: 2 }}>
      <Typography id={headingId} variant="h6" component="h2" sx={{ mb: 1 }}>
        At a glance
      </Typography>
      <Box
        data-testid="at-a-glance"
        sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: 'repeat(2, minmax(0, 1fr))', md: 'repeat(4, minmax(0, 1fr))' } }}
      >
        <GlanceCard label="Contacts" to="/people/users">
          {figure(glance?.contacts)}
          {glance?.contacts === 0 && <Typography variant="body2">Add your first contacts</Typography>}
        </GlanceCard>
        <GlanceCard label="Campaigns" to="/campaigns">
          {figure(glance?.campaigns)}
          {glance?.campaigns === 0 && <Typography variant="body2">Start one with the send wizard</Typography>}
        </GlanceCard>
        <GlanceCard label={`Sent in ${DateTime.utc().toFormat('LLLL')} (UTC)`} to="/insights/stats">
          {figure(glance?.sendsThisMonth)}
        </GlanceCard>
        <GlanceCard label="Latest campaign" to={last ? `/insights/stats?campaign_id=${last.id}` : '/email-send-wizard'}>
          {glance === undefined ? (
            <Skeleton width="80%" height={40} />
          ) : last ? (
            <>
              <Typography variant="subtitle1" component="p" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
                {last.name}
              </Typography>
              <Typography variant="body2">
                {`${last.sends.toLocaleString()} sent · ${formatRate(last.openRate)} opened · ${formatRate(last.clickRate)} clicked`}
              </Typography>
            </>
          ) : (
            <Typography variant="body2">No campaign yet: send your first with the send wizard</Typography>
          )}
        </GlanceCard>
      </Box>
    </Box>
  );
}
