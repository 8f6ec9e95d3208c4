/**
 * Settings (/account/settings; spec part 1 §2 "Settings shows the API endpoint, key, headers and a sample event, and is
 * the same page as team in one reading"): the events endpoint, the api key, the headers, a sample event
 * and the same as a curl command that works when pasted into a shell; then the team.
 */
import { Box, Card, CardContent, Stack, Typography } from '@mui/material';
import { getSession } from '../session';
import { CopyField } from './CopyField';
import { curlCommand, eventsEndpoint, SAMPLE_EVENT } from './apiSample';
import { TeamPanel } from './TeamPage';

/** SettingsPage shows the project's API settings and its team. */
export function SettingsPage() {
  const session = getSession();
  if (!session) return null;
  const gateway = session.endpoints.api_event_gateway;
  return (
    <Stack spacing={2}>
      <Typography variant="h5" component="h1">
        Settings
      </Typography>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Events API
          </Typography>
          <Typography sx={{ mb: 2 }}>
            Post events for event-triggered campaigns and workflows to your account’s endpoint. Each event names a contact by email; metric1 to metric3 are
            numbers and json may hold anything.
          </Typography>
          <Box sx={{ display: 'grid', gap: 2 }}>
            <CopyField id="settings-endpoint" label="Endpoint (POST)" value={eventsEndpoint(gateway)} />
            <CopyField id="settings-api-key" label="API key" value={session.api_client_key} />
            <CopyField id="settings-headers" label="Headers" multiline value={`Content-Type: application/json\nx-api-key: ${session.api_client_key}`} />
            <CopyField id="settings-sample" label="Sample event" multiline value={JSON.stringify(SAMPLE_EVENT, null, 2)} />
            <CopyField id="settings-curl" label="Sample as curl" multiline value={curlCommand(gateway, session.api_client_key)} />
          </Box>
        </CardContent>
      </Card>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Your team
          </Typography>
          <TeamPanel embedded />
        </CardContent>
      </Card>
    </Stack>
  );
}
