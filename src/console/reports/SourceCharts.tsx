/**
 * The Statistics page's source and template charts (spec part 1 §2 Insights and reports: opens and clicks by
 * user_agent — grouped into Desktop / Other, Tablet, Mobile — and by domain; part 2 §9: up to six template colours,
 * pie labels cut at 20 characters). Loaded lazily with @mui/x-charts and the user-agent parser.
 */
import { BarChart } from '@mui/x-charts/BarChart';
import { PieChart } from '@mui/x-charts/PieChart';
import type { components } from '../../../generated/types/reporting.gen';
import { chartName, groupByDevice, isIntegerTick } from '../../domain/reports';
import { deviceOf } from '../../domain/devices';

type SourceRow = components['schemas']['SourceRow'];
type OpenedEmailRow = components['schemas']['OpenedEmailRow'];

const OPENS = '#2e7d32';
const CLICKS = '#e65100';
/** Up to six template colours (part 2 §9). */
const TEMPLATE_COLORS = ['#1565c0', '#2e7d32', '#e65100', '#7b1fa2', '#c62828', '#00695c'];
/** How many domains the by-domain chart shows (the rest are in no bar). */
export const DOMAINS_SHOWN = 10;

const Y_AXIS = [{ tickMinStep: 1, tickLabelInterval: (value: number) => isIntegerTick(value) }];

/** DeviceChart shows opens and clicks per device group from the by-user-agent rows. */
export function DeviceChart({ rows }: { rows: SourceRow[] }) {
  const groups = groupByDevice(rows, deviceOf);
  return (
    <BarChart
      height={220}
      skipAnimation
      xAxis={[{ scaleType: 'band', data: groups.map((g) => g.device) }]}
      yAxis={Y_AXIS}
      series={[
        { data: groups.map((g) => g.num_opens), label: 'Opens', color: OPENS },
        { data: groups.map((g) => g.num_clicks), label: 'Clicks', color: CLICKS },
      ]}
    />
  );
}

/** DomainChart shows opens and clicks of the recipients' domains with the most opens and clicks, names cut at 20. */
export function DomainChart({ rows }: { rows: SourceRow[] }) {
  const top = rows.slice(0, DOMAINS_SHOWN);
  return (
    <BarChart
      height={220}
      skipAnimation
      xAxis={[{ scaleType: 'band', data: top.map((r) => chartName(r.to_domain ?? '')) }]}
      yAxis={Y_AXIS}
      series={[
        { data: top.map((r) => r.num_opens), label: 'Opens', color: OPENS },
        { data: top.map((r) => r.num_clicks), label: 'Clicks', color: CLICKS },
      ]}
    />
  );
}

/** SubjectPie shows the unique opens of the six most-opened subjects, labels cut at 20 characters. */
export function SubjectPie({ rows }: { rows: OpenedEmailRow[] }) {
  const top = rows.filter((r) => r.num_unique_opens > 0).slice(0, TEMPLATE_COLORS.length);
  return (
    <PieChart
      height={200}
      skipAnimation
      series={[
        {
          data: top.map((r, i) => ({ id: i, value: r.num_unique_opens, label: chartName(r.email_subject), color: TEMPLATE_COLORS[i] })),
          innerRadius: 30,
        },
      ]}
    />
  );
}
