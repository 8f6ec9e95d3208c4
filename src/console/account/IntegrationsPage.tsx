/**
 * Integrations (/account/api; spec part 1 §1 "Integrations exist with two automation platforms (the second is
 * invite-only) and with a direct events API", §3 Session integration keys): the first automation
 * platform's section with its key, the invite-only second platform linking to /contact-us, and the direct API with the
 * project's api key, and the email providers' bounce and complaint webhooks (ProviderFeedbackCard).
 */
import { Link as RouterLink } from 'react-router-dom';
import { Box, Button, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { getSession } from '../session';
import { CopyField } from './CopyField';
import { ProviderFeedbackCard } from './ProviderFeedbackCard';

/** IntegrationsPage shows how to connect the project to other systems. */
export function IntegrationsPage() {
  const session = getSession();
  if (!session) return null;
  return (
    <Stack spacing={2}>
      <Typography variant="h5" component="h1">
        Integrations
      </Typography>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Make (automation platform)
          </Typography>
          <Typography sx={{ mb: 2 }}>
            Add contacts, templates and events from your Make scenarios. Paste this integration key into the app’s connection; it sends it as the x-api-key
            header. The operations it offers are described in the <RouterLink to="/blog/make-integration-api-spec">Make integration API spec</RouterLink>.
          </Typography>
          <CopyField id="integration-key" label="Integration key" value={session.integration_key} />
        </CardContent>
      </Card>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Second automation platform <Chip size="small" label="Invite only" sx={{ ml: 1 }} />
          </Typography>
          <Typography sx={{ mb: 2 }}>
            Our second automation-platform integration is open by invitation while it is in beta. Tell us what you would like to automate and we will send you
            an invitation with your key.
          </Typography>
          <Button variant="outlined" component={RouterLink} to="/contact-us">
            Request an invitation
          </Button>
        </CardContent>
      </Card>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Direct API
          </Typography>
          <Typography sx={{ mb: 2 }}>
            Call the gateways directly with your project’s API key in the x-api-key header: upsert contacts, save templates, sender personas, segments and
            blasts, and post events for event-triggered campaigns.
          </Typography>
          <Box sx={{ mb: 2 }}>
            <CopyField id="api-key" label="API key" value={session.api_client_key} />
          </Box>
          <Stack direction="row" spacing={2}>
            <Button variant="contained" component={RouterLink} to="/account/settings">
              Endpoint and sample event
            </Button>
            <Button variant="outlined" component={RouterLink} to="/docs/api">
              API documentation
            </Button>
          </Stack>
        </CardContent>
      </Card>
      <ProviderFeedbackCard />
    </Stack>
  );
}
