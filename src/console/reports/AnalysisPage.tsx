/**
 * The campaign analysis at /insights/analysis (spec part 1 §2 names the route; the design is src/console/reports/
 * analysis.ts): every live campaign from campaign_metrics side by side — sends and the open, click, click-to-open,
 * unsubscribe, bounce and failure rates (N/A without sends) and type — sortable by any column (a second click reverses it,
 * spec part 1 §4 Sort), 25 rows a page, each campaign linking to its statistics at /insights/stats?campaign_id={id}.
 * With no campaigns it says 'Nothing here, yet'.
 */
import { useMemo, useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import {
  Box,
  Button,
  Card,
  CardContent,
  Link,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
  TableSortLabel,
  Typography,
} from '@mui/material';
import { campaignTypeLabel } from '../../domain/campaigns';
import { formatRate } from '../../domain/reports';
import { formatDate, truncate } from '../resources/shared/ResourceList';
import { ANALYSIS_COLUMNS, analysisRow, sortAnalysis, type AnalysisKey, type AnalysisRow, type CampaignMetrics } from './analysis';
import { ReportStatus } from './ReportSection';
import { useLoaded, type ReportState } from './useReport';
import { MachineToggle } from './CampaignFilter';

/** The campaign_metrics page size the analysis reads with (the gateway's largest). */
const FETCH_PAGE = 1000;
/** At most this many pages are read (10,000 campaigns). */
const FETCH_PAGES = 10;
const ROWS_PER_PAGE = 25;
/** The columns aligned left (the others hold numbers). */
const TEXT_COLUMNS: AnalysisKey[] = ['name', 'type', 'created_at'];
/** Campaign names are cut at 60 characters (part 2 §9). */
const NAME_MAX = 60;

/** useCampaignMetrics reads every live campaign's metrics, page by page (reads retried 2/250 ms). */
function useCampaignMetrics(): ReportState<CampaignMetrics> {
  return useLoaded<CampaignMetrics>(
    'analysis',
    async (dataProvider) => {
      const rows: CampaignMetrics[] = [];
      for (let page = 0; page < FETCH_PAGES; page++) {
        const body = await dataProvider.callGateway('listCampaignMetrics', {
          query: { limit: FETCH_PAGE, offset: page * FETCH_PAGE, sort_columns: 'created_at DESC' },
        });
        rows.push(...body.campaigns_with_metrics);
        if (body.campaigns_with_metrics.length < FETCH_PAGE) break;
      }
      return rows;
    },
    "Couldn't fetch campaigns",
  );
}

function cell(row: AnalysisRow, key: AnalysisKey) {
  switch (key) {
    case 'name':
      return (
        <Box component="span" sx={{ display: 'block', minWidth: '12rem' }}>
          <Link
            component={RouterLink}
            to={`/insights/stats?campaign_id=${encodeURIComponent(row.id)}`}
            title={row.name.length > NAME_MAX ? row.name : undefined}
          >
            {truncate(row.name, NAME_MAX)}
          </Link>
        </Box>
      );
    case 'type':
      return campaignTypeLabel(row.type);
    case 'sends':
      return row.sends;
    case 'created_at':
      return formatDate(row.created_at);
    default:
      return formatRate(row[key]);
  }
}

/** AnalysisPage renders /insights/analysis. */
export function AnalysisPage() {
  const state = useCampaignMetrics();
  const [sort, setSort] = useState<{ key: AnalysisKey; order: 'asc' | 'desc' }>({ key: 'sends', order: 'desc' });
  const [page, setPage] = useState(0);
  const rows = useMemo(() => sortAnalysis(state.rows.map(analysisRow), sort.key, sort.order), [state.rows, sort]);
  const status = ReportStatus({ title: 'Campaign analysis', state, empty: 'Nothing here, yet' });

  const sortBy = (key: AnalysisKey) => {
    setSort((s) => (s.key === key ? { key, order: s.order === 'asc' ? 'desc' : 'asc' } : { key, order: key === 'name' ? 'asc' : 'desc' }));
    setPage(0);
  };

  return (
    <Box>
      <Typography variant="h5" component="h1" sx={{ mb: 1 }}>
        Campaign analysis
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        Every campaign side by side, all time. Rates count emails (one message to one recipient): open, click, unsubscribe and bounce rates per send,
        click-to-open as clicks per open, and failures per attempted send. N/A means there is nothing to divide by.
      </Typography>
      <Box sx={{ mb: 1 }}>
        <MachineToggle />
      </Box>
      <Card variant="outlined">
        {status ? (
          <CardContent>
            {status}
            {!state.loading && !state.error && (
              <Button component={RouterLink} to="/campaigns/new" variant="outlined" size="small" sx={{ mt: 2 }}>
                New Campaign
              </Button>
            )}
          </CardContent>
        ) : (
          <>
            <TableContainer>
              <Table size="small" aria-label="Campaign analysis">
                <TableHead>
                  <TableRow>
                    {ANALYSIS_COLUMNS.map((c) => (
                      <TableCell key={c.key} align={TEXT_COLUMNS.includes(c.key) ? 'left' : 'right'} sortDirection={sort.key === c.key ? sort.order : false}>
                        <TableSortLabel active={sort.key === c.key} direction={sort.key === c.key ? sort.order : 'asc'} onClick={() => sortBy(c.key)}>
                          {c.label}
                        </TableSortLabel>
                      </TableCell>
                    ))}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {rows.slice(page * ROWS_PER_PAGE, (page + 1) * ROWS_PER_PAGE).map((row) => (
                    <TableRow key={row.id}>
                      {ANALYSIS_COLUMNS.map((c) => (
                        <TableCell key={c.key} align={TEXT_COLUMNS.includes(c.key) ? 'left' : 'right'}>
                          {cell(row, c.key)}
                        </TableCell>
                      ))}
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
            <TablePagination
              component="div"
              count={rows.length}
              page={page}
              rowsPerPage={ROWS_PER_PAGE}
              rowsPerPageOptions={[ROWS_PER_PAGE]}
              onPageChange={(_, p) => setPage(p)}
            />
          </>
        )}
      </Card>
    </Box>
  );
}
