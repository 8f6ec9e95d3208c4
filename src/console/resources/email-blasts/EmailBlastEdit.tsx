/**
 * A saved email blast at /components/email-blasts/edit/{id} (spec part 2 §2 Email blasts, §4): everything read-only,
 * with the note that a scheduled blast cannot be edited, and its progress (scheduled, sent, failed).
 */
import { useParams, Link as RouterLink } from 'react-router-dom';
import { useGetMany, useGetOne, type RaRecord } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, Chip, LinearProgress, Stack, TextField, Typography } from '@mui/material';
import { resourcesByName } from '../../../../generated/resources.gen';
import { CONTACT_LOCAL_TIMEZONE, formatSendAt } from '../../../domain/sendTime';
import { Loading } from '../../layout/ConsoleLayout';
import { personaLabel } from '../shared/formWidgets';
import { timeLabel } from './timeInput';

const definition = resourcesByName['email-blasts'];

function ReadOnly({ id, label, value }: { id: string; label: string; value: string }) {
  return <TextField id={id} label={label} value={value} slotProps={{ htmlInput: { readOnly: true } }} fullWidth />;
}

function Progress({ blast }: { blast: RaRecord }) {
  const scheduled = Number(blast.scheduled_emails ?? 0);
  const sent = Number(blast.sent_emails ?? 0);
  const failed = Number(blast.failed_emails ?? 0);
  const deferred = Number(blast.deferred_emails ?? 0);
  const waiting = Number(blast.waiting_emails ?? 0);
  const done = scheduled > 0 ? Math.round(((sent + failed) / scheduled) * 100) : 0;
  return (
    <Box component="section">
      <Typography variant="subtitle1" component="h2">
        Progress
      </Typography>
      {scheduled === 0 ? (
        <Typography color="text.secondary">
          {blast.enabled ? 'Not sent yet: recipients are listed when the blast is due.' : 'This blast was disabled before it was sent.'}
        </Typography>
      ) : (
        <>
          <LinearProgress variant="determinate" value={done} sx={{ my: 1 }} />
          <Typography>
            {sent} sent, {failed} failed, of {scheduled} scheduled
            {waiting > 0 ? `; ${waiting} waiting to be sent` : ''}
            {deferred > 0 ? `; ${deferred} deferred (by the relay, or held for the next day by a daily cap), to be tried again` : ''}
          </Typography>
        </>
      )}
    </Box>
  );
}

function BlastView({ blast }: { blast: RaRecord }) {
  const template = useGetOne('templates', { id: String(blast.template_id ?? '') }, { enabled: !!blast.template_id });
  const persona = useGetOne('sender-personas', { id: String(blast.sender_persona_id ?? '') }, { enabled: !!blast.sender_persona_id });
  const segmentIds: string[] = blast.to_segment_ids ?? [];
  const userIds: string[] = blast.to_user_ids ?? [];
  const segments = useGetMany('segments', { ids: segmentIds }, { enabled: segmentIds.length > 0 });
  const contacts = useGetMany('contacts', { ids: userIds }, { enabled: userIds.length > 0 });
  const [date = '', time = ''] = String(blast.send_at ?? '').split('T');

  return (
    <Stack spacing={2}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Chip label={blast.enabled ? 'Enabled' : 'Disabled'} color={blast.enabled ? 'success' : 'default'} size="small" />
        <Typography color="text.secondary">Send At: {formatSendAt(blast as never)}</Typography>
      </Stack>
      <ReadOnly id="blast-name" label="Name" value={String(blast.name ?? '')} />
      <ReadOnly id="blast-template" label="Template" value={template.data ? String(template.data.name) : String(blast.template_id ?? '')} />
      <ReadOnly id="blast-sender-persona" label="Sender persona" value={persona.data ? personaLabel(persona.data) : String(blast.sender_persona_id ?? '')} />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <ReadOnly id="blast-send-date" label="Send date" value={date} />
        <ReadOnly id="blast-send-time" label="Send time" value={time ? timeLabel(time.slice(0, 5)) : ''} />
        <ReadOnly id="blast-timezone" label="Timezone" value={blast.send_in_users_timezone ? CONTACT_LOCAL_TIMEZONE : String(blast.timezone ?? '')} />
      </Stack>
      <ReadOnly
        id="blast-segments"
        label="Segments"
        value={segmentIds.length === 0 ? 'None' : (segments.data ?? []).map((s) => s.name).join(', ') || `${segmentIds.length} segment(s)`}
      />
      <ReadOnly
        id="blast-contacts"
        label="Contacts"
        value={userIds.length === 0 ? 'None' : (contacts.data ?? []).map((c) => c.email).join(', ') || `${userIds.length} contact(s)`}
      />
      <Progress blast={blast} />
    </Stack>
  );
}

/** EmailBlastEdit loads a blast and shows it read-only. */
export function EmailBlastEdit() {
  const { id = '' } = useParams();
  const { data, isPending, error } = useGetOne('email-blasts', { id }, { refetchInterval: 15000 });
  return (
    <Box sx={{ maxWidth: 760 }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        Email Blast
      </Typography>
      <Alert severity="info" sx={{ mb: 2 }}>
        {definition.readOnlyEdit}{' '}
        <Button size="small" component={RouterLink} to={definition.route}>
          Go to the list
        </Button>
      </Alert>
      <Card variant="outlined">
        <CardContent>
          {isPending ? (
            <Loading />
          ) : error || !data ? (
            <Alert severity="error">Couldn't fetch email blast: {(error as Error | null)?.message ?? 'not found'}</Alert>
          ) : (
            <BlastView blast={data} />
          )}
        </CardContent>
      </Card>
    </Box>
  );
}
