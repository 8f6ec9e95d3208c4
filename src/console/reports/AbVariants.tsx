/**
 * The Variants section of /insights/stats for an A/B test campaign: one row per template the campaign
 * sent (campaign_metrics split by template), with its sends, open and click rates, the best open rate marked, each
 * other variant's difference against the best with the confidence of a two-proportion z-test, and a plain verdict
 * (including when there are too few emails to call). Shown only when the filtered campaign is an a_b_test campaign.
 */
import { useEffect, useState } from 'react';
import { useDataProvider } from 'react-admin';
import { Chip, Typography } from '@mui/material';
import type { AppDataProvider } from '../data/dataProvider';
import { ReportSection } from './ReportSection';
import { ReportTable } from './ReportTable';
import { variantLines, type VariantLine } from './abVariants';
import { useLoaded } from './useReport';
import { RETRY } from '../retry';

/** VariantsTable reads the campaign's split metrics and shows the comparison. */
function VariantsTable({ campaignId }: { campaignId: string }) {
  // One campaign split by template (a split campaign's rows stay together, so limit 1 campaign gives all of them).
  const state = useLoaded(
    `variants:${campaignId}`,
    async (dataProvider) =>
      (await dataProvider.callGateway('listCampaignMetrics', { query: { ids: campaignId, split_templates: true, limit: 1 } }, RETRY.reports))
        .campaigns_with_metrics,
    "Couldn't fetch campaigns",
  );
  return (
    <ReportSection title="Variants" state={state} empty="Nothing sent yet for this A/B test">
      {(rows) => {
        const lines = variantLines(rows);
        return (
          <>
            <Typography variant="body2" sx={{ mb: 1 }}>
              Rates are per email sent (distinct opens and clicks). Each variant is compared with the best open rate by a two-proportion z-test; a difference is
              called at 95% confidence.
            </Typography>
            <ReportTable<VariantLine>
              label="Variants"
              rows={lines}
              columns={[
                {
                  label: 'Template',
                  render: (l) => (
                    <>
                      {l.name}
                      {l.best && <Chip size="small" color="success" label="Best" sx={{ ml: 1 }} />}
                    </>
                  ),
                },
                { label: 'Sends', render: (l) => l.sends, numeric: true },
                { label: 'Open rate', render: (l) => l.openRate, numeric: true },
                { label: 'Click rate', render: (l) => l.clickRate, numeric: true },
                { label: 'Opens vs best', render: (l) => l.openVsBest },
                { label: 'Clicks vs best', render: (l) => l.clickVsBest },
                { label: 'Verdict', render: (l) => l.verdict },
              ]}
            />
          </>
        );
      }}
    </ReportSection>
  );
}

/** AbVariants shows the Variants section when `campaignId` names an a_b_test campaign, and nothing otherwise. */
export function AbVariants({ campaignId }: { campaignId?: string }) {
  const dataProvider = useDataProvider<AppDataProvider>();
  const [isAb, setIsAb] = useState(false);
  useEffect(() => {
    setIsAb(false);
    if (!campaignId) return;
    let live = true;
    dataProvider
      .callGateway('listCampaigns', { query: { ids: campaignId, limit: 1 } })
      .then(({ campaigns }) => live && setIsAb(campaigns[0]?.type === 'a_b_test'))
      .catch(() => {
        /* the other sections show the campaign's errors */
      });
    return () => {
      live = false;
    };
  }, [dataProvider, campaignId]);
  if (!campaignId || !isAb) return null;
  return <VariantsTable campaignId={campaignId} />;
}
