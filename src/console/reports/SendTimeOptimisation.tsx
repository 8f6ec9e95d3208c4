/**
 * The Send-time optimisation panel of /insights/stats for one campaign (openapi/reporting.yaml
 * getSendTimeOptimisation): how the emails sent at each contact's best hour were opened against those sent at a
 * fallback hour (the project's best hour, or the blast's own time), each with its emails, people's opens and open rate.
 * Shown only when the campaign sent such emails.
 */
import { Typography } from '@mui/material';
import type { ListRow } from '../data/apiTypes';
import { ReportSection } from './ReportSection';
import { ReportTable } from './ReportTable';
import { useReport } from './useReport';

type Row = ListRow<'getSendTimeOptimisation'>;

/** How each group is named in the panel. */
export const SEND_TIME_GROUP_LABELS: Record<Row['group'], string> = {
  best_hour: 'Sent at their best hour',
  fallback: 'Sent at a fallback hour',
};

/** formatRate writes an open rate (0-1) as a percentage with one decimal, e.g. 0.4567 → "45.7%". */
export function formatRate(rate: number): string {
  return `${(rate * 100).toFixed(1).replace(/\.0$/, '')}%`;
}

/** SendTimeOptimisation shows the panel for campaign `campaignId` when its report has rows, and nothing otherwise. */
export function SendTimeOptimisation({ campaignId }: { campaignId?: string }) {
  return campaignId ? <CampaignSendTimes campaignId={campaignId} /> : null;
}

/** CampaignSendTimes reads one campaign's report and shows the panel once it has rows. */
function CampaignSendTimes({ campaignId }: { campaignId: string }) {
  const state = useReport('getSendTimeOptimisation', { campaign_id: campaignId }, "Couldn't fetch send-time optimisation report data");
  if (state.loading || state.error !== undefined || state.rows.length === 0) return null;
  const rows = [...state.rows].sort((a, b) => (a.group === b.group ? 0 : a.group === 'best_hour' ? -1 : 1));
  return (
    <ReportSection title="Send-time optimisation" state={state} empty="">
      {() => (
        <>
          <Typography variant="body2" sx={{ mb: 1 }}>
            Emails sent at each contact’s best hour (the hour most of its opens fell in), against those sent at a fallback hour because the contact had no opens
            yet. Opens are people’s, not machines’.
          </Typography>
          <ReportTable<Row>
            label="Send-time optimisation"
            rows={rows}
            columns={[
              { label: 'Group', render: (r) => SEND_TIME_GROUP_LABELS[r.group] },
              { label: 'Emails', render: (r) => r.emails.toLocaleString('en-US'), numeric: true },
              { label: 'Opened', render: (r) => r.opened.toLocaleString('en-US'), numeric: true },
              { label: 'Open rate', render: (r) => formatRate(r.open_rate), numeric: true },
            ]}
          />
        </>
      )}
    </ReportSection>
  );
}
