/**
 * The daily DMARC chart of Domain Settings (account/DmarcSection.tsx): per UTC day, the messages receivers reported
 * that passed and that failed DMARC, stacked, counted from zero with whole-number ticks, and the same numbers as a
 * table behind 'Show as table' (the Statistics page's ChartTable). Loaded lazily with @mui/x-charts.
 */
import { BarChart } from '@mui/x-charts/BarChart';
import type { components } from '../../../generated/types/domains.gen';
import { COUNT_AXIS, ChartTable } from '../pages/SendsChart';

type Day = components['schemas']['DmarcReport']['daily'][number];

const PASSED = '#2e7d32';
const FAILED = '#c62828';
const Y_AXIS = [COUNT_AXIS];

/** DmarcChart draws `daily` (oldest first) for `domain`. */
export function DmarcChart({ daily, domain }: { daily: Day[]; domain: string }) {
  return (
    <>
      <BarChart
        height={200}
        skipAnimation
        xAxis={[{ scaleType: 'band', data: daily.map((d) => d.day.slice(5)) }]}
        yAxis={Y_AXIS}
        series={[
          { data: daily.map((d) => d.dmarc_pass), label: 'Passed', color: PASSED, stack: 'dmarc' },
          { data: daily.map((d) => d.messages - d.dmarc_pass), label: 'Failed', color: FAILED, stack: 'dmarc' },
        ]}
      />
      <ChartTable
        caption={`DMARC results for ${domain} per day (UTC)`}
        rowHeader="Day (UTC)"
        rowLabel={(d) => d.day}
        columns={[
          { label: 'Messages', value: (d) => d.messages },
          { label: 'Passed DMARC', value: (d) => d.dmarc_pass },
          { label: 'DKIM pass', value: (d) => d.dkim_pass },
          { label: 'SPF pass', value: (d) => d.spf_pass },
          { label: 'Quarantined', value: (d) => d.quarantined },
          { label: 'Rejected', value: (d) => d.rejected },
        ]}
        rows={daily}
      />
    </>
  );
}
