/**
 * One section of a report page (spec part 1 §2 Insights and reports, §8): a titled card that shows a spinner while
 * its report loads, 'Unable to load data: {error}' when it failed, the section's empty text when there are no rows,
 * else its content.
 */
import { useId, type ReactNode } from 'react';
import { Alert, Box, Card, CardContent, CircularProgress, Typography } from '@mui/material';
import type { ReportState } from './useReport';

/** The props of one report section: its title, report state, empty text and how its rows render. */
export interface ReportSectionProps<T> {
  title: string;
  state: ReportState<T>;
  /** The empty-state text, e.g. 'No links have been clicked for the given filters'. */
  empty: string;
  /** Whether the rows count as empty (default: no rows). */
  isEmpty?: (rows: T[]) => boolean;
  children: (rows: T[]) => ReactNode;
}

/** ReportStatus renders the loading, error or empty state of a report, or nothing when it has rows to show. */
export function ReportStatus<T>({ title, state, empty, isEmpty }: Omit<ReportSectionProps<T>, 'children'>): ReactNode {
  if (state.loading) {
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', p: 2 }}>
        <CircularProgress size={28} aria-label={`Loading ${title}`} />
      </Box>
    );
  }
  if (state.error !== undefined) return <Alert severity="error">Unable to load data: {state.error}</Alert>;
  if (isEmpty ? isEmpty(state.rows) : state.rows.length === 0) return <Typography color="text.secondary">{empty}</Typography>;
  return null;
}

/** ReportSection renders one report as a card section labelled by its heading (an h2). */
export function ReportSection<T>({ title, state, empty, isEmpty, children }: ReportSectionProps<T>) {
  const headingId = useId();
  const status = ReportStatus({ title, state, empty, isEmpty });
  return (
    <Card variant="outlined" component="section" aria-labelledby={headingId} sx={{ minWidth: 0 }}>
      <CardContent>
        <Typography id={headingId} variant="h6" component="h2" gutterBottom>
          {title}
        </Typography>
        {status ?? children(state.rows)}
      </CardContent>
    </Card>
  );
}
