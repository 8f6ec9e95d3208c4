/**
 * The campaigns list at /campaigns (spec part 2 §2 Campaigns, §9): the generated resource list of campaign_metrics —
 * name (cut at 60), type (its label), sends, opens, clicks, unsubscribes, bounces, Failures and Added, sortable, 5 a
 * page, newest first — with the toggle "Split out A/B template campaigns by template" (split_templates=true; a split
 * row names its template), and per row: stats (/insights/stats?campaign_id={id}), edit (/campaigns/edit/{id}) and
 * archive (the steps dialog). Links to /campaigns/new and the send wizard.
 */
import { Link as RouterLink } from 'react-router-dom';
import { useListContext, useRecordContext, type RaRecord } from 'react-admin';
import { Box, Button, FormControlLabel, Switch, Typography } from '@mui/material';
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList, truncate } from '../shared/ResourceList';
import { CampaignArchiveButton, CampaignArchiveProvider, campaignIdOf } from './CampaignArchiveButton';

const definition = resourcesByName.campaigns;

/** The split toggle's label (part 2 §2 Campaigns). */
export const SPLIT_LABEL = 'Split out A/B template campaigns by template';

/** SplitToggle switches the list filter split_templates. */
function SplitToggle() {
  const { filterValues, setFilters } = useListContext();
  const on = filterValues.split_templates === true || filterValues.split_templates === 'true';
  return (
    <FormControlLabel
      sx={{ mb: 1 }}
      control={
        <Switch
          checked={on}
          onChange={(e) => {
            const { split_templates: _old, ...rest } = filterValues;
            setFilters(e.target.checked ? { ...rest, split_templates: true } : rest, {});
          }}
        />
      }
      label={SPLIT_LABEL}
    />
  );
}

/** StatsButton opens the row's campaign statistics. */
function StatsButton() {
  const record = useRecordContext();
  if (!record) return null;
  return (
    <Button
      size="small"
      component={RouterLink}
      to={`/insights/stats?campaign_id=${encodeURIComponent(campaignIdOf(record))}`}
      aria-label={`Stats of ${record.name}`}
    >
      Stats
    </Button>
  );
}

/** nameCell shows the name (wide enough to read; a split row's template under it). */
function nameCell(column: { source: string }, record: RaRecord, truncateAt?: number) {
  if (column.source !== 'name') return undefined;
  const name = String(record.name ?? '');
  return (
    <Box component="span" sx={{ display: 'block', minWidth: '10rem' }}>
      <span title={truncateAt && name.length > truncateAt ? name : undefined}>{truncate(name, truncateAt)}</span>
      {record.template_id && (
        <Typography variant="body2" color="text.secondary" component="span" sx={{ display: 'block' }}>
          Template: {truncate(record.template_name ?? record.template_id, truncateAt)}
        </Typography>
      )}
    </Box>
  );
}

/** CampaignList lists campaigns with their metrics. */
export function CampaignList() {
  return (
    <CampaignArchiveProvider>
      <ResourceList
        definition={definition}
        entity="campaign"
        toolbar={<SplitToggle />}
        editId={campaignIdOf}
        cell={nameCell}
        rowActions={
          <>
            <StatsButton />
            <CampaignArchiveButton />
          </>
        }
      />
    </CampaignArchiveProvider>
  );
}
