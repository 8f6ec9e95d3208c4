/**
 * The campaign filter of the report pages (spec part 1 §2: /insights/stats "The filter is kept in the URL and clearing
 * it removes it"; part 2 §2 Pick lists): a campaign pick list whose choice is the URL's campaign_id, and the "Include
 * machine opens" switch.
 */
import { Box, FormControlLabel, Switch } from '@mui/material';
import { UUID_RE } from '../../domain/validation';
import { PickList, usePickSource } from '../resources/shared/PickList';
import { useCampaignParam, useIncludeMachineParam } from './urlParams';

/** CampaignFilter picks the campaign the page reports on; clearing it removes campaign_id (every campaign). */
export function CampaignFilter({ id = 'report-campaign-filter' }: { id?: string }) {
  const [campaignId, setCampaignId] = useCampaignParam();
  const source = usePickSource('campaigns');
  // A campaign_id that is no campaign id is not looked up; the reports show the gateway's error for it.
  const malformed = !!campaignId && !UUID_RE.test(campaignId);
  return (
    <Box sx={{ maxWidth: 420, mb: 2 }}>
      <PickList
        id={id}
        label="Campaign"
        placeholder="All campaigns"
        source={source}
        value={campaignId && !malformed ? [campaignId] : []}
        onChange={(ids) => setCampaignId(ids[0])}
        error={malformed ? `The address names no campaign id (${campaignId}); choose a campaign` : undefined}
        helperText={campaignId ? undefined : 'Showing every campaign'}
        noOptionsText="Nothing here, yet"
      />
      <MachineToggle />
    </Box>
  );
}

/**
 * MachineToggle is the report pages' "Include machine opens" switch: off (the default), every number
 * counts what people did — no Apple Mail Privacy Protection prefetch, scanner or proxy refetch, no bot click; on, every
 * recorded open and click. Kept in the URL (machine=include) like the campaign.
 */
export function MachineToggle() {
  const [include, setInclude] = useIncludeMachineParam();
  return (
    <FormControlLabel sx={{ mt: 0.5 }} control={<Switch checked={include} onChange={(e) => setInclude(e.target.checked)} />} label="Include machine opens" />
  );
}
