/**
 * The Insights page at /insights and / (spec part 1 §2 Insights, §5, §9): the account at a glance (AtAGlance), the 30-day and 24-hour charts of the report
 * columns, each with column checkboxes whose deselected set is the URL's deselected_columns1 (30-day) and
 * deselected_columns2 (24-hour) — absent means unsuccessful_sends, complaints, bounces and unsubscribes hidden, 'none'
 * nothing hidden — both filtered by the URL's optional campaign_id (a campaign pick list); then the Recent emails list:
 * every send result (sent or failed; the spec's initial search 'email_send_result_success' read as
 * plumbing, so the list is fixed to the send results and the search box starts empty, on the recipient), newest first,
 * 10 a page, each with its result in words and a link that opens the stored email in a new tab.
 */
import { lazy, Suspense } from 'react';
import { Datagrid, FunctionField, ListBase, Pagination, TextField as RaTextField, useListContext, useNotify, type RaRecord } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { Alert, Box, Button, Card, CardContent, Link, Stack, Typography } from '@mui/material';
import { SearchBox } from '../resources/shared/SearchBox';
import { SandboxActivation } from '../account/SandboxActivation';
import { AtAGlance } from './AtAGlance';
import { CampaignFilter } from '../reports/CampaignFilter';
import { useCampaignParam, useDeselectedParam, type DeselectedParam } from '../reports/urlParams';
import { EVENT } from '../../domain/events.ts';
import { formatDateTime } from '../dates';

/** The events Recent emails lists: one per email the project sent or failed to send (spec part 1 §2 Insights). */
export const RECENT_EMAILS_EVENTS = [EVENT.sendSuccess, EVENT.sendFailure].join(',');

/** sendResultLabel is a send result's event name in words ('Sent', 'Failed'). */
export function sendResultLabel(name: unknown): string {
  return name === EVENT.sendSuccess ? 'Sent' : name === EVENT.sendFailure ? 'Failed' : String(name ?? '');
}

/** formatOccurred renders an event's emitted_at in the user's locale and zone, e.g. 'Nov 22, 2026, 12:30 PM UTC'. */
export function formatOccurred(value: unknown): string {
  return formatDateTime(value);
}

/** RecentEmailsEmpty tells a new account how its first emails get here, or says that a search found none. */
function RecentEmailsEmpty() {
  const { filterValues } = useListContext();
  if (filterValues.q) return <Typography sx={{ p: 2 }}>No emails found for this search.</Typography>;
  return (
    <Box sx={{ p: 2 }}>
      <Typography>No emails sent yet. The emails you send appear here, each with a copy of what the recipient got.</Typography>
      <Button variant="contained" sx={{ mt: 1 }} component={RouterLink} to="/email-send-wizard">
        Send a campaign
      </Button>
    </Box>
  );
}

function RecentEmailsTable() {
  const { error } = useListContext();
  if (error) return <Alert severity="error">Couldn’t fetch events: {(error as Error).message}</Alert>;
  return (
    <>
      <Datagrid bulkActionButtons={false} rowClick={false} empty={<RecentEmailsEmpty />}>
        <FunctionField source="emitted_at" label="Occurred" render={(r: RaRecord) => formatOccurred(r.emitted_at)} />
        <RaTextField source="email" label="Email" emptyText="" />
        <FunctionField source="name" label="Result" render={(r: RaRecord) => sendResultLabel(r.name)} />
        <FunctionField label="Subject" sortable={false} render={(r: RaRecord) => String(r.json?.subject ?? '')} />
        <FunctionField
          label="Email copy"
          sortable={false}
          render={(r: RaRecord) =>
            r.json?.location ? (
              <Link href={`/email/${r.json.location}`} target="_blank" rel="noopener noreferrer">
                View email
              </Link>
            ) : null
          }
        />
      </Datagrid>
      <Pagination rowsPerPageOptions={[10]} />
    </>
  );
}

/** RecentEmails lists recent email events with a search box (debounced 1000 ms). */
export function RecentEmails() {
  const notify = useNotify();
  return (
    <ListBase
      resource="events"
      disableSyncWithLocation
      perPage={10}
      sort={{ field: 'emitted_at', order: 'DESC' }}
      filter={{ include_system_events: true, include_events: RECENT_EMAILS_EVENTS }}
      filterDefaultValues={{ field: 'email' }}
      queryOptions={{ onError: (error: Error) => notify(`Couldn’t fetch events: ${error.message}`, { type: 'error' }) }}
    >
      <Card variant="outlined" component="section" aria-labelledby="recent-emails-heading">
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom id="recent-emails-heading">
            Recent emails
          </Typography>
          <SearchBox fields={['email', 'emitted_at']} labels={{ email: 'Recipient', emitted_at: 'Date (YYYY-MM-DD)' }} />
        </CardContent>
        <RecentEmailsTable />
      </Card>
    </ListBase>
  );
}

const SendsChart = lazy(() => import('./SendsChart'));

/** ChartSlot is one sends chart of the Insights page, its deselected columns kept in the URL as `param`. */
function ChartSlot({ period, param }: { period: 'day' | 'hour'; param: DeselectedParam }) {
  const [campaignId] = useCampaignParam();
  const [deselected, setDeselected] = useDeselectedParam(param);
  return (
    <Suspense fallback={<Card variant="outlined" sx={{ flex: 1, minHeight: 120 }} />}>
      <SendsChart period={period} campaignId={campaignId} deselected={deselected} onDeselectedChange={setDeselected} />
    </Suspense>
  );
}

/** InsightsPage is the logged-in home: the account at a glance, the campaign filter, the two sends charts and the Recent emails list. */
export function InsightsPage() {
  return (
    <Box>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', gap: 1 }}>
        <Typography variant="h5" component="h1">
          Insights
        </Typography>
        <Stack direction="row" spacing={1}>
          <Button variant="outlined" size="small" component={RouterLink} to="/insights/stats">
            Statistics
          </Button>
          <Button variant="outlined" size="small" component={RouterLink} to="/insights/issues">
            Issues
          </Button>
          <Button variant="outlined" size="small" component={RouterLink} to="/insights/analysis">
            Campaign analysis
          </Button>
        </Stack>
      </Stack>
      <SandboxActivation />
      <AtAGlance />
      <CampaignFilter />
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2 }}>
        <ChartSlot period="day" param="deselected_columns1" />
        <ChartSlot period="hour" param="deselected_columns2" />
      </Stack>
      <RecentEmails />
    </Box>
  );
}
