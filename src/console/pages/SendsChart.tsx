/**
 * A report series chart (spec part 1 §2 Insights and reports, Chart details; §8; §9 default report columns): per-hour
 * counts over the last 24 hours or per-day counts over the last 31 days, in UTC, from the reporting gateway, one line
 * per shown report column. Each column has a checkbox (the legend); the deselected ones are the page's URL parameter
 * (deselected_columns1 or 2), owned by the caller. Only every 3rd x label is shown (4th on small, 5th on extra-small
 * screens), non-integer y ticks are hidden, and a campaign's name is cut at 20 characters. Loaded lazily with
 * @mui/x-charts.
 */
import { useId } from 'react';
import { Box, Card, CardContent, Checkbox, FormControlLabel, FormGroup, Typography, useMediaQuery, useTheme } from '@mui/material';
import { LineChart } from '@mui/x-charts/LineChart';
import { ALL_SERIES_COLUMNS, COLUMN_LABELS, chartName, isIntegerTick, labelEvery, toggleColumn, type SeriesColumn } from '../../domain/reports';
import { ReportStatus } from '../reports/ReportSection';
import { useReport } from '../reports/useReport';

const CHARTS = {
  day: {
    title: 'Sends in the last 30 days',
    operation: 'getSendsLast31Days',
    error: "Couldn't fetch 31-day-sends report data",
    label: (iso: string) => iso.slice(5, 10),
  },
  hour: {
    title: 'Sends in the last 24 hours',
    operation: 'getSendsLast24Hours',
    error: "Couldn't fetch 24-hour-sends report data",
    label: (iso: string) => `${iso.slice(11, 13)}:00`,
  },
} as const;

/** Each report column's colour, the same in the chart and on its checkbox (AA contrast on white). */
export const COLUMN_COLORS: Record<SeriesColumn, string> = {
  sends: '#1565c0',
  unsuccessful_sends: '#6d4c41',
  unsubscribes: '#7b1fa2',
  opens: '#2e7d32',
  clicks: '#e65100',
  complaints: '#c2185b',
  bounces: '#c62828',
};

/** useLabelEvery is how many x labels apart the chart shows one at the current screen width (MUI breakpoints). */
function useLabelEvery(): number {
  const theme = useTheme();
  const extraSmall = useMediaQuery(theme.breakpoints.down('sm'));
  const small = useMediaQuery(theme.breakpoints.down('md'));
  return labelEvery(extraSmall ? 'xs' : small ? 'sm' : 'md');
}

/** The props of one series chart: which period, campaign and columns, and the deselected set with its setter. */
export interface SendsChartProps {
  /** `day`: the last 31 days (sendslast31days); `hour`: the last 24 hours (sendslast24hours). */
  period: 'day' | 'hour';
  /** The campaign reported on; undefined for every campaign. */
  campaignId?: string;
  /** The columns offered (default every report column, in the spec's order). */
  columns?: SeriesColumn[];
  /** The columns hidden now. */
  deselected: SeriesColumn[];
  /** Called with the new deselected set when a checkbox changes. */
  onDeselectedChange: (deselected: SeriesColumn[]) => void;
  /** The heading, without the '(UTC)' the chart adds. */
  title?: string;
}

/** SendsChart renders one series chart with its column checkboxes, times in UTC. */
export default function SendsChart({ period, campaignId, columns = ALL_SERIES_COLUMNS, deselected, onDeselectedChange, title }: SendsChartProps) {
  const chart = CHARTS[period];
  const heading = `${title ?? chart.title} (UTC)`;
  const headingId = useId();
  const every = useLabelEvery();
  const state = useReport(chart.operation, { campaign_id: campaignId }, chart.error);
  const shown = columns.filter((c) => !deselected.includes(c));
  const campaignName = state.rows.find((r) => r.campaign_name)?.campaign_name;

  const status = ReportStatus({ title: heading, state, empty: 'No data' });
  // With nothing counted the axis would span 0–0; give it 0–1 so it reads as zero.
  const peak = Math.max(0, ...shown.flatMap((c) => state.rows.map((r) => r[c])));
  let body: React.ReactNode = status;
  if (!status) {
    body =
      shown.length === 0 ? (
        <Typography color="text.secondary">Every column is hidden: tick one above to show it.</Typography>
      ) : (
        <LineChart
          height={240}
          skipAnimation
          xAxis={[
            {
              scaleType: 'point',
              data: state.rows.map((r) => chart.label(String(r.emitted_at_trunc))),
              tickLabelInterval: (_value: unknown, index: number) => index % every === 0,
            },
          ]}
          yAxis={[{ min: 0, max: peak === 0 ? 1 : undefined, tickMinStep: 1, tickLabelInterval: (value: number) => isIntegerTick(value) }]}
          series={shown.map((column) => ({
            id: column,
            data: state.rows.map((r) => r[column]),
            label: COLUMN_LABELS[column],
            color: COLUMN_COLORS[column],
            showMark: period === 'hour',
          }))}
          hideLegend
        />
      );
  }
  return (
    <Card variant="outlined" component="section" aria-labelledby={headingId} sx={{ flex: 1, minWidth: 0 }}>
      <CardContent>
        <Typography id={headingId} variant="h6" component="h2">
          {heading}
        </Typography>
        {campaignName && (
          <Typography variant="body2" color="text.secondary" title={campaignName}>
            Campaign: {chartName(campaignName)}
          </Typography>
        )}
        <FormGroup row role="group" aria-label={`Columns of ${heading}`} sx={{ my: 1 }}>
          {columns.map((column) => (
            <FormControlLabel
              key={column}
              label={COLUMN_LABELS[column]}
              control={
                <Checkbox
                  size="small"
                  checked={!deselected.includes(column)}
                  onChange={() => onDeselectedChange(toggleColumn(deselected, column))}
                  sx={{ color: COLUMN_COLORS[column], '&.Mui-checked': { color: COLUMN_COLORS[column] } }}
                />
              }
            />
          ))}
        </FormGroup>
        <Box sx={{ minHeight: 120 }}>{body}</Box>
      </CardContent>
    </Card>
  );
}
