/**
 * The campaign form at /campaigns/new and /campaigns/edit/{id} (spec part 2 §2 Campaigns, §4 Campaign type and Forms,
 * §5 Campaign, §7 Campaigns, §8): the heading New / Edit Campaign Associations, a name, a type select and the
 * multi-selects the type shows (workflows; email blasts, enabled ones only, and templates; or templates), with the
 * clearing rules of changeCampaignType / selectAssociations. An existing campaign carries the warning that changing
 * how it works means archiving it and creating a new one with the send wizard. Save clears the 24-hour and then the
 * 31-day sends report caches (6/300 ms; a failure stops the save with the spec's message), then saves; messages show
 * only after the first save attempt, the server's 400 messages under the fields they name and as a toast. After a
 * create the page goes to /campaigns/edit/{id}.
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link as RouterLink, useNavigate, useParams } from 'react-router-dom';
import { HttpError, useDataProvider, useNotify } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, CircularProgress, Link, Stack, TextField, Typography } from '@mui/material';
import type { components } from '../../../../generated/types/campaign.gen';
import {
  FORM_CAMPAIGN_TYPES,
  campaignProblems,
  campaignTypeLabel,
  changeCampaignType,
  selectAssociations,
  type CampaignAssociations,
  type CampaignType,
} from '../../../domain/campaigns';
import type { AppDataProvider } from '../../data/dataProvider';
import { RETRY } from '../../retry';
import { uuidv4 } from '../../uuid';
import { PickList, usePickSource } from '../shared/PickList';
import { CACHED_REPORTS, cacheClearError, fieldErrors, selectsFor, type AssociationField, type CampaignField } from './campaignForm';

type Campaign = components['schemas']['Campaign'];

/** A campaign with no type and no associations: the new form's start. */
const EMPTY: CampaignAssociations = { type: '', scheduled_email_blast_group_ids: [], workflow_ids: [], template_ids: [] };

/** The multi-selects' labels. */
const SELECT_LABELS: Record<AssociationField, string> = {
  workflow_ids: 'Workflows',
  scheduled_email_blast_group_ids: 'Email blasts',
  template_ids: 'Templates',
};

/** CampaignForm edits campaign `id`, or a new campaign without one. */
function CampaignForm({ id }: { id?: string }) {
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const navigate = useNavigate();
  const templates = usePickSource('templates');
  const blasts = usePickSource('email-blasts');
  const workflows = usePickSource('workflows');
  const newId = useMemo(() => uuidv4(), []);

  const [existing, setExisting] = useState<Campaign | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [name, setName] = useState('');
  const [assoc, setAssoc] = useState<CampaignAssociations>(EMPTY);
  const [attempted, setAttempted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Partial<Record<CampaignField, string>>>({});
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!id) return;
    let live = true;
    dataProvider
      .callGateway('listCampaigns', { query: { ids: id, limit: 1 } })
      .then(({ campaigns: [found] }) => {
        if (!live) return;
        if (!found) {
          setLoadError(`no campaign with id ${id}`);
          return;
        }
        setExisting(found);
        setName(found.name);
        setAssoc({
          type: found.type,
          scheduled_email_blast_group_ids: found.scheduled_email_blast_group_ids,
          workflow_ids: found.workflow_ids,
          template_ids: found.template_ids,
        });
      })
      .catch((error: Error) => {
        if (!live) return;
        notify(`Couldn't fetch campaigns: ${error.message}`, { type: 'error' });
        setLoadError(error.message);
      });
    return () => {
      live = false;
    };
  }, [dataProvider, id, notify]);

  const problems = fieldErrors(campaignProblems({ name, ...assoc })).fields;
  const shown: Partial<Record<CampaignField, string>> = { ...(attempted ? problems : {}), ...serverErrors };
  const clearServerError = (...fields: CampaignField[]) =>
    setServerErrors((prev) => Object.fromEntries(Object.entries(prev).filter(([f]) => !fields.includes(f as CampaignField))));

  const types: string[] = FORM_CAMPAIGN_TYPES.includes(assoc.type) ? FORM_CAMPAIGN_TYPES : [...FORM_CAMPAIGN_TYPES, assoc.type];

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setAttempted(true);
    if (Object.keys(problems).length) return;
    const campaignId = existing?.id ?? newId;
    setSaving(true);
    try {
      for (const { report, name: cacheName } of CACHED_REPORTS) {
        try {
          await dataProvider.callGateway('clearReportCache', { path: { report }, body: { campaign_id: campaignId } }, RETRY.reportCacheClear);
        } catch (error) {
          notify(cacheClearError(cacheName, (error as Error).message), { type: 'error' });
          return;
        }
      }
      const body = { campaign: { id: campaignId, name: name.trim(), ...assoc } };
      try {
        const { campaign } = await dataProvider.callGateway('saveCampaign', { body }, RETRY.write);
        setServerErrors({});
        notify(`Successfully saved campaign '${campaign.name}'`, { type: 'success' });
        if (!existing) navigate(`/campaigns/edit/${campaign.id}`);
        else setExisting(campaign);
      } catch (error) {
        const errors = error instanceof HttpError ? (error.body as { errors?: unknown })?.errors : undefined;
        setServerErrors(fieldErrors(Array.isArray(errors) ? errors.map(String) : []).fields);
        notify(`Couldn't save campaign: ${(error as Error).message}`, { type: 'error' });
      }
    } finally {
      setSaving(false);
    }
  };

  if (id && loadError) {
    return (
      <Box sx={{ maxWidth: 760 }}>
        <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
          Edit Campaign Associations
        </Typography>
        <Alert severity="error">Couldn't fetch campaign: {loadError}</Alert>
      </Box>
    );
  }
  if (id && !existing) return <CircularProgress aria-label="Loading campaign" />;

  const selects = selectsFor(assoc.type);
  const choose = (field: AssociationField, ids: string[]) => {
    setAssoc((a) => selectAssociations(a, field, ids));
    clearServerError('workflow_ids', 'scheduled_email_blast_group_ids', 'template_ids', 'type');
  };

  return (
    <Box sx={{ maxWidth: 760 }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {existing ? 'Edit Campaign Associations' : 'New Campaign Associations'}
      </Typography>
      {existing && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          Changing how this campaign works means archiving it from{' '}
          <Link component={RouterLink} to="/campaigns">
            Campaigns
          </Link>{' '}
          and creating a new one with the{' '}
          <Link component={RouterLink} to="/email-send-wizard">
            send wizard
          </Link>
          . Here you can rename it and change which email blasts, workflows or templates its reports cover.
        </Alert>
      )}
      <Card variant="outlined">
        <CardContent>
          <Stack component="form" spacing={2} onSubmit={save} noValidate>
            <TextField
              id="campaign-name"
              label="Name"
              value={name}
              required
              onChange={(e) => {
                setName(e.target.value);
                clearServerError('name');
              }}
              error={!!shown.name}
              helperText={shown.name}
            />
            <TextField
              id="campaign-type"
              select
              label="Type"
              value={assoc.type}
              onChange={(e) => {
                setAssoc((a) => changeCampaignType(a, e.target.value as CampaignType));
                clearServerError('type', 'workflow_ids', 'scheduled_email_blast_group_ids', 'template_ids');
              }}
              error={!!shown.type}
              helperText={shown.type ?? (assoc.type ? undefined : 'Choose a type to pick its email blasts, workflows or templates')}
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            >
              {types.map((t) => (
                <option key={t} value={t} disabled={!FORM_CAMPAIGN_TYPES.includes(t as CampaignType)}>
                  {campaignTypeLabel(t)}
                </option>
              ))}
            </TextField>
            {selects.includes('workflow_ids') && (
              <PickList
                id="campaign-workflows"
                label={SELECT_LABELS.workflow_ids}
                multiple
                source={workflows}
                value={assoc.workflow_ids}
                onChange={(ids) => choose('workflow_ids', ids)}
                error={shown.workflow_ids}
              />
            )}
            {selects.includes('scheduled_email_blast_group_ids') && (
              <PickList
                id="campaign-email-blasts"
                label={SELECT_LABELS.scheduled_email_blast_group_ids}
                multiple
                source={blasts}
                value={assoc.scheduled_email_blast_group_ids}
                onChange={(ids) => choose('scheduled_email_blast_group_ids', ids)}
                error={shown.scheduled_email_blast_group_ids}
                helperText="Enabled email blasts; search by name"
                placeholder="Search email blasts"
              />
            )}
            {selects.includes('template_ids') && (
              <PickList
                id="campaign-templates"
                label={SELECT_LABELS.template_ids}
                multiple
                source={templates}
                value={assoc.template_ids}
                onChange={(ids) => choose('template_ids', ids)}
                error={shown.template_ids}
                helperText="Search templates by name"
                placeholder="Search templates"
              />
            )}
            <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', gap: 1 }}>
              <Button type="submit" variant="contained" disabled={saving}>
                {saving ? 'Saving…' : 'Save'}
              </Button>
              {existing && (
                <Button component={RouterLink} to={`/insights/stats?campaign_id=${existing.id}`}>
                  Statistics
                </Button>
              )}
              <Button component={RouterLink} to="/campaigns">
                Back to campaigns
              </Button>
            </Stack>
          </Stack>
        </CardContent>
      </Card>
    </Box>
  );
}

/** CampaignCreate renders /campaigns/new. */
export function CampaignCreate() {
  return <CampaignForm key="new" />;
}

/** CampaignEdit renders /campaigns/edit/{id}. */
export function CampaignEdit() {
  const { id } = useParams();
  return <CampaignForm key={id} id={id} />;
}
