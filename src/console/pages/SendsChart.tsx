/**
 * A report series chart (spec part 1 §2 Insights and reports, Chart details; §8; §9 default report columns;
 * charts that do not mislead): per-hour counts over the last 24 hours or per-day counts over the last 31 days, in
 * UTC, from the reporting gateway, one bar per bucket for each shown report column. Each column has a checkbox (the
 * legend); the deselected ones are the page's URL parameter (deselected_columns1 or 2), owned by the caller. Only
 * every 3rd x label is shown (4th on small, 5th on extra-small screens), the y axis starts at zero with integer ticks
 * only, and a campaign's name is cut at 20 characters. With nothing counted the chart says 'No sends yet' instead of
 * drawing an empty axis, and under a drawn chart a 'Show as table' toggle reveals its numbers as an HTML table.
 * Loaded lazily with @mui/x-charts; also exports the empty state, the table toggle and the count axis the Statistics
 * page's other charts (reports/SourceCharts.tsx) share.
 */
import { useId, useState } from 'react';
import {
  Box,
  Button,
  Card,
  CardContent,
  Checkbox,
  FormControlLabel,
  FormGroup,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import type { components } from '../../../generated/types/reporting.gen';
import { ALL_SERIES_COLUMNS, COLUMN_LABELS, chartName, isIntegerTick, labelEvery, toggleColumn, type SeriesColumn } from '../../domain/reports';
import { ReportStatus } from '../reports/ReportSection';
import { useReport } from '../reports/useReport';

type SeriesRow = components['schemas']['SeriesRow'];

/** The empty-state text of the series charts when nothing at all was counted in their period. */
export const NO_SENDS = 'No sends yet';

/**
 * The y axis of every count chart: it starts at zero (a bar's height is its count, never a difference from some
 * floor), its ticks are at least 1 apart so they fall on whole numbers (d3 steps of 1, 2, 5, 10, …), and a
 * non-integer tick would get no label anyway.
 */
export const COUNT_AXIS = { min: 0, tickMinStep: 1, tickLabelInterval: (value: number) => isIntegerTick(value) };

/** ChartEmpty is a chart's empty state: a status message (and an optional detail) in place of an axis with nothing on it. */
export function ChartEmpty({ message, detail }: { message: string; detail?: string }) {
  return (
    <Box
      role="status"
      sx={{ minHeight: 120, display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', textAlign: 'center', gap: 0.5 }}
    >
      <Typography sx={{ fontWeight: 500 }}>{message}</Typography>
      {detail && (
        <Typography variant="body2" color="text.secondary">
          {detail}
        </Typography>
      )}
    </Box>
  );
}

/** One number column of a chart's table: its header and each row's count. */
export interface ChartTableColumn<T> {
  label: string;
  value: (row: T) => number;
}

/** The props of ChartTable: the table's caption, its row header column, its number columns and its rows. */
export interface ChartTableProps<T> {
  /** The table's caption, usually the chart's title. */
  caption: string;
  /** The header of the first column, which names each row (e.g. 'Day (UTC)'). */
  rowHeader: string;
  /** The name of one row (its bucket, device group, domain, …), shown in full. */
  rowLabel: (row: T) => string;
  /** One column per series the chart shows, in the chart's order. */
  columns: ChartTableColumn<T>[];
  rows: T[];
}

/**
 * ChartTable puts a chart's numbers in an HTML table for screen readers and keyboard users: a 'Show as
 * table' button (aria-expanded, aria-controls) under the chart reveals a table with a caption, a header row, one row
 * per bucket (its name in a row header cell) and one right-aligned column per series; the button then reads 'Hide
 * table'. Collapsed by default so the page keeps its length.
 */
export function ChartTable<T>({ caption, rowHeader, rowLabel, columns, rows }: ChartTableProps<T>) {
  const [open, setOpen] = useState(false);
  const tableId = useId();
  return (
    <Box sx={{ mt: 1 }}>
      <Button size="small" aria-expanded={open} aria-controls={tableId} onClick={() => setOpen((o) => !o)}>
        {open ? 'Hide table' : 'Show as table'}
      </Button>
      <Box id={tableId} hidden={!open}>
        {open && (
          <TableContainer>
            <Table size="small" sx={{ '& caption': { captionSide: 'top', px: 0 } }}>
              <caption>{caption}</caption>
              <TableHead>
                <TableRow>
                  <TableCell component="th" scope="col">
                    {rowHeader}
                  </TableCell>
                  {columns.map((c) => (
                    <TableCell key={c.label} component="th" scope="col" align="right">
                      {c.label}
                    </TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((row, i) => (
                  <TableRow key={i}>
                    <TableCell component="th" scope="row" sx={{ wordBreak: 'break-word' }}>
                      {rowLabel(row)}
                    </TableCell>
                    {columns.map((c) => (
                      <TableCell key={c.label} align="right">
                        {c.value(row)}
                      </TableCell>
                    ))}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </Box>
    </Box>
  );
}

const CHARTS = {
  day: {
    title: 'Sends in the last 30 days',
    operation: 'getSendsLast31Days',
    error: "Couldn't fetch 31-day-sends report data",
    span: 'in the last 31 days (UTC)',
    rowHeader: 'Day (UTC)',
    label: (iso: string) => iso.slice(5, 10),
    fullLabel: (iso: string) => iso.slice(0, 10),
  },
  hour: {
    title: 'Sends in the last 24 hours',
    operation: 'getSendsLast24Hours',
    error: "Couldn't fetch 24-hour-sends report data",
    span: 'in the last 24 hours (UTC)',
    rowHeader: 'Hour (UTC)',
    label: (iso: string) => `${iso.slice(11, 13)}:00`,
    fullLabel: (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00`,
  },
} as const;

/** listOf joins lower-cased column labels as a sentence: 'bounces', 'opens or clicks', 'sends, opens or clicks'. */
function listOf(columns: SeriesColumn[]): string {
  const names = columns.map((c) => COLUMN_LABELS[c].toLowerCase());
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

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

  // Loading and error only: the rows are always one per bucket (zeros included), so emptiness is judged below.
  const status = ReportStatus({ title: heading, state, empty: NO_SENDS, isEmpty: () => false });
  const counted = (cols: SeriesColumn[]) => state.rows.some((r) => cols.some((c) => r[c] > 0));
  let body: React.ReactNode = status;
  if (!status) {
    if (!counted(ALL_SERIES_COLUMNS)) {
      // Nothing at all in the period: say so rather than draw a bare axis.
      body = <ChartEmpty message={NO_SENDS} detail={`Nothing was sent, opened or clicked ${chart.span}.`} />;
    } else if (shown.length === 0) {
      body = <Typography color="text.secondary">Every column is hidden: tick one above to show it.</Typography>;
    } else if (!counted(shown)) {
      // e.g. the Issues chart of a project with sends but no bounces: an axis of zeros would only suggest a scale.
      body = <ChartEmpty message={`No ${listOf(shown)} ${chart.span}`} />;
    } else {
      // Bars, not lines: each value is a count inside one bucket (an hour or a UTC day), so a bar per bucket shows
      // exactly that, with an empty bucket visibly empty. A line (smoothed or not) joins neighbouring buckets and
      // draws two sends on one day as a ramp from the day before; a step line avoids the ramp but, on a category
      // axis, gives the last bucket (this hour, today) no width and hides series that share a level. Bars are
      // grouped, not stacked: sends, opens and clicks are not parts of one whole.
      body = (
        <>
          <BarChart
            height={240}
            skipAnimation
            xAxis={[
              {
                scaleType: 'band',
                data: state.rows.map((r) => chart.label(String(r.emitted_at_trunc))),
                tickPlacement: 'middle',
                tickLabelInterval: (_value: unknown, index: number) => index % every === 0,
              },
            ]}
            yAxis={[COUNT_AXIS]}
            series={shown.map((column) => ({
              id: column,
              data: state.rows.map((r) => r[column]),
              label: COLUMN_LABELS[column],
              color: COLUMN_COLORS[column],
            }))}
            hideLegend
          />
          <ChartTable<SeriesRow>
            caption={campaignName ? `${heading}, campaign ${campaignName}` : heading}
            rowHeader={chart.rowHeader}
            rowLabel={(r) => chart.fullLabel(String(r.emitted_at_trunc))}
            columns={shown.map((column) => ({ label: COLUMN_LABELS[column], value: (r) => r[column] }))}
            rows={state.rows}
          />
        </>
      );
    }
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
