/**
 * The Statistics page's source and template charts (spec part 1 §2 Insights and reports: opens and clicks by
 * user_agent — grouped into Desktop / Other, Tablet, Mobile — and by domain; part 2 §9: up to six template colours,
 * pie labels cut at 20 characters; charts that do not mislead). The bar charts count from zero with
 * integer ticks; a chart with nothing to count says so instead of drawing an empty axis or pie; under each chart a
 * 'Show as table' toggle reveals its numbers (full names, not cut) as an HTML table. Loaded lazily with @mui/x-charts
 * and the user-agent parser.
 */
import { BarChart } from '@mui/x-charts/BarChart';
import { PieChart } from '@mui/x-charts/PieChart';
import type { components } from '../../../generated/types/reporting.gen';
import { chartName, groupByDevice, readableSubject } from '../../domain/reports';
import { deviceOf } from '../../domain/devices';
import { COUNT_AXIS, ChartEmpty, ChartTable } from '../pages/SendsChart';

type SourceRow = components['schemas']['SourceRow'];
type OpenedEmailRow = components['schemas']['OpenedEmailRow'];

const OPENS = '#2e7d32';
const CLICKS = '#e65100';
/** Up to six template colours (part 2 §9). */
const TEMPLATE_COLORS = ['#1565c0', '#2e7d32', '#e65100', '#7b1fa2', '#c62828', '#00695c'];
/** How many domains the by-domain chart shows (the rest are in no bar). */
export const DOMAINS_SHOWN = 10;

const Y_AXIS = [COUNT_AXIS];
/** The empty state of the opens-and-clicks charts (their rows are opens and clicks, so 'No sends yet' would be wrong). */
const NO_OPENS_OR_CLICKS = 'No opens or clicks yet';

/** DeviceChart shows opens and clicks per device group from the by-user-agent rows, with its table toggle. */
export function DeviceChart({ rows }: { rows: SourceRow[] }) {
  const groups = groupByDevice(rows, deviceOf);
  if (!groups.some((g) => g.num_opens > 0 || g.num_clicks > 0)) return <ChartEmpty message={NO_OPENS_OR_CLICKS} />;
  return (
    <>
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
      <ChartTable
        caption="Opens and clicks by device"
        rowHeader="Device"
        rowLabel={(g) => g.device}
        columns={[
          { label: 'Opens', value: (g) => g.num_opens },
          { label: 'Clicks', value: (g) => g.num_clicks },
        ]}
        rows={groups}
      />
    </>
  );
}

/**
 * DomainChart shows opens and clicks of the recipients' domains with the most opens and clicks, names cut at 20 (in
 * full in its table).
 */
export function DomainChart({ rows }: { rows: SourceRow[] }) {
  const top = rows.slice(0, DOMAINS_SHOWN);
  if (!top.some((r) => r.num_opens > 0 || r.num_clicks > 0)) return <ChartEmpty message={NO_OPENS_OR_CLICKS} />;
  return (
    <>
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
      <ChartTable
        caption="Opens and clicks by domain"
        rowHeader="Domain"
        rowLabel={(r) => r.to_domain ?? ''}
        columns={[
          { label: 'Opens', value: (r) => r.num_opens },
          { label: 'Clicks', value: (r) => r.num_clicks },
        ]}
        rows={top}
      />
    </>
  );
}

/** SubjectPie shows the unique opens of the six most-opened subjects, labels cut at 20 characters (in full in its table). */
export function SubjectPie({ rows }: { rows: OpenedEmailRow[] }) {
  const top = rows.filter((r) => r.num_unique_opens > 0).slice(0, TEMPLATE_COLORS.length);
  if (top.length === 0) return <ChartEmpty message="No opens yet" />;
  return (
    <>
      <PieChart
        height={200}
        skipAnimation
        series={[
          {
            data: top.map((r, i) => ({ id: i, value: r.num_unique_opens, label: chartName(readableSubject(r.email_subject)), color: TEMPLATE_COLORS[i] })),
            innerRadius: 30,
          },
        ]}
      />
      <ChartTable
        caption="Unique opens of the most-opened subjects"
        rowHeader="Subject"
        rowLabel={(r) => readableSubject(r.email_subject)}
        columns={[{ label: 'Unique opens', value: (r) => r.num_unique_opens }]}
        rows={top}
      />
    </>
  );
}
