/**
 * One sends chart of the Insights page (spec part 1 §2 Insights, §8, §9): per-hour sends over the last 24 hours or
 * per-day sends over the last 31 days, in UTC, from the reporting gateway. Loaded lazily with @mui/x-charts.
 */
import { useEffect, useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import { Alert, Box, Card, CardContent, CircularProgress, Typography } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import type { components } from '../../../generated/types/reporting.gen';
import type { AppDataProvider } from '../data/dataProvider';

type SeriesRow = components['schemas']['SeriesRow'];

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

/** SendsChart renders the 24-hour (`hour`) or 31-day (`day`) sends bar chart, times in UTC. */
export default function SendsChart({ period }: { period: 'day' | 'hour' }) {
  const chart = CHARTS[period];
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const [state, setState] = useState<{ loading: boolean; rows: SeriesRow[]; error?: string }>({ loading: true, rows: [] });

  useEffect(() => {
    let live = true;
    dataProvider
      .callGateway<{ data: SeriesRow[] }>(chart.operation)
      .then((body) => live && setState({ loading: false, rows: body.data ?? [] }))
      .catch((error: Error) => {
        if (!live) return;
        notify(`${chart.error}: ${error.message}`, { type: 'error' });
        setState({ loading: false, rows: [], error: error.message });
      });
    return () => {
      live = false;
    };
  }, [dataProvider, notify, chart]);

  let body: React.ReactNode;
  if (state.loading) {
    body = (
      <Box sx={{ display: 'flex', justifyContent: 'center', p: 3 }}>
        <CircularProgress aria-label="Loading chart" />
      </Box>
    );
  } else if (state.error) {
    body = <Alert severity="error">Unable to load data: {state.error}</Alert>;
  } else if (state.rows.length === 0) {
    body = <Typography color="text.secondary">No data</Typography>;
  } else {
    body = (
      <BarChart
        height={220}
        xAxis={[
          {
            scaleType: 'band',
            data: state.rows.map((r) => chart.label(String(r.emitted_at_trunc))),
            tickLabelInterval: (_value: unknown, index: number) => index % 3 === 0,
          },
        ]}
        yAxis={[{ tickMinStep: 1 }]}
        series={[{ data: state.rows.map((r) => r.sends), label: 'Sends' }]}
        hideLegend
      />
    );
  }
  return (
    <Card variant="outlined" sx={{ flex: 1, minWidth: 0 }}>
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          {chart.title} (UTC)
        </Typography>
        {body}
      </CardContent>
    </Card>
  );
}
