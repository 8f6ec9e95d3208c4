/**
 * One message (/messages/:id; openapi/messages.yaml getMessage): who it went to and from, its Message-ID to copy, its
 * stream, status, source, tags and metadata; its timeline (queued, each attempt a relay deferred or refused, sent with
 * the accepting relay's answer, bounces, complaints, opens and clicks marked as a person's or a machine's,
 * unsubscribes, webhook messages) beside its stored copy exactly as sent: the HTML in a sandboxed frame (the console's
 * one sandbox, VIEWER_SANDBOX), the text part when there is no HTML or on its tab, or why there is no copy.
 */
import { useEffect, useState } from 'react';
import { Link as RouterLink, useLocation, useParams } from 'react-router-dom';
import type { HttpError } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, Chip, CircularProgress, Link, Stack, Tab, Tabs, Typography } from '@mui/material';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { callOperation } from '../data/gateway';
import { formatDateTime } from '../dates';
import { CopyField } from '../account/CopyField';
import { DetailList } from '../resources/shared/DetailList';
import { VIEWER_SANDBOX } from '../pages/EmailViewer';
import { StatusChip } from './MessagesPage';
import { SOURCE_LABELS, TIMELINE_LABELS, byteSize, noCopyText, whoDid, type ChipColor, type MessageDetail, type TimelineEntry } from './messageModel';

const ENTRY_COLOR: Partial<Record<TimelineEntry['type'], ChipColor>> = {
  sent: 'success',
  deferred: 'warning',
  failed: 'error',
  bounced: 'error',
  complained: 'error',
  opened: 'info',
  clicked: 'info',
};

/** Timeline lists what happened to the message, oldest first. */
function Timeline({ entries }: { entries: TimelineEntry[] }) {
  return (
    <Box component="ol" aria-label="Timeline" sx={{ listStyle: 'none', p: 0, m: 0 }}>
      {entries.map((entry, i) => {
        const who = whoDid(entry);
        return (
          <Box
            component="li"
            key={`${entry.at}-${i}`}
            data-testid="timeline-entry"
            sx={{ py: 1.25, borderBottom: i < entries.length - 1 ? 1 : 0, borderColor: 'divider' }}
          >
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 0.5 }}>
              <Chip size="small" color={ENTRY_COLOR[entry.type] ?? 'default'} label={TIMELINE_LABELS[entry.type]} />
              {who && (
                <Chip size="small" variant="outlined" color={who === 'machine' ? 'warning' : 'success'} label={who === 'machine' ? 'machine' : 'person'} />
              )}
              <Typography variant="body2" color="text.secondary" component="time" dateTime={entry.at}>
                {formatDateTime(entry.at, { seconds: true })}
              </Typography>
            </Stack>
            {entry.detail && (
              <Typography variant="body2" sx={{ mt: 0.5, overflowWrap: 'anywhere' }}>
                {entry.detail}
              </Typography>
            )}
            {entry.relay && (
              <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                Relay: {entry.relay}
              </Typography>
            )}
          </Box>
        );
      })}
    </Box>
  );
}

/** StoredCopy shows the copy as sent: its HTML in a sandboxed frame and its text part, or why there is none. */
function StoredCopy({ message }: { message: MessageDetail }) {
  const { copy } = message;
  const [tab, setTab] = useState<'html' | 'text'>('html');
  if (!copy) return <Typography color="text.secondary">{noCopyText(message.status)}</Typography>;
  const showing = copy.html === null ? 'text' : tab;
  return (
    <Stack spacing={1}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 0.5 }}>
        <Typography variant="body2" color="text.secondary">
          {byteSize(copy.raw_size)} as sent
        </Typography>
        <Link href={`/email/${encodeURIComponent(copy.location)}`} target="_blank" rel="noopener" variant="body2">
          Open full size
        </Link>
      </Stack>
      {copy.html !== null && copy.text !== null && (
        <Tabs value={tab} onChange={(_, v: 'html' | 'text') => setTab(v)} aria-label="Part of the stored copy">
          <Tab value="html" label="HTML" id="copy-tab-html" aria-controls="copy-panel" />
          <Tab value="text" label="Text" id="copy-tab-text" aria-controls="copy-panel" />
        </Tabs>
      )}
      <Box id="copy-panel" role={copy.html !== null && copy.text !== null ? 'tabpanel' : undefined} aria-labelledby={`copy-tab-${showing}`}>
        {showing === 'html' ? (
          <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1, overflow: 'hidden' }}>
            {/* Sandboxed as in the email viewer: nothing of the email runs (see VIEWER_SANDBOX). */}
            <iframe
              title={`The email to ${message.email} as sent`}
              sandbox={VIEWER_SANDBOX}
              srcDoc={copy.html ?? ''}
              style={{ width: '100%', height: 560, border: 0, background: '#fff', display: 'block' }}
            />
          </Box>
        ) : (
          <Box
            component="pre"
            data-testid="copy-text"
            sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', bgcolor: 'action.hover', p: 1.5, m: 0, fontSize: 13, borderRadius: 1 }}
          >
            {copy.text || '(the text part is empty)'}
          </Box>
        )}
      </Box>
    </Stack>
  );
}

/** MessagePage is /messages/:id; see the module comment. */
export function MessagePage() {
  const { id = '' } = useParams();
  const back = (useLocation().state as { back?: string } | null)?.back ?? '/messages';
  const [message, setMessage] = useState<MessageDetail | null>(null);
  const [error, setError] = useState('');
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setMessage(null);
    setError('');
    callOperation('getMessage', { path: { id } })
      .then((r) => live && setMessage(r.data))
      .catch((e: HttpError) => live && setError(e.status === 404 ? `There is no message ${id} in this project.` : `Couldn’t load the message: ${e.message}`));
    return () => {
      live = false;
    };
  }, [id, attempt]);

  const backLink = (
    <Box>
      <Button component={RouterLink} to={back} startIcon={<ArrowBackIcon />} size="small">
        Back to messages
      </Button>
    </Box>
  );
  if (error) {
    return (
      <Stack spacing={2}>
        {backLink}
        <Typography variant="h5" component="h1">
          Message
        </Typography>
        <Alert
          severity="error"
          action={
            <Button color="inherit" onClick={() => setAttempt((n) => n + 1)}>
              Retry
            </Button>
          }
        >
          {error}
        </Alert>
      </Stack>
    );
  }
  if (!message) {
    return (
      <Stack spacing={2}>
        {backLink}
        <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
          <CircularProgress aria-label="Loading the message" />
        </Box>
      </Stack>
    );
  }
  const metadata = Object.entries(message.metadata);
  return (
    <Stack spacing={2}>
      {backLink}
      <Card variant="outlined">
        <CardContent>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1, mb: 2 }}>
            <Typography variant="h5" component="h1" sx={{ overflowWrap: 'anywhere', mr: 1 }}>
              {message.subject || '(no subject)'}
            </Typography>
            <StatusChip status={message.status} />
          </Stack>
          {message.last_error && message.status !== 'sent' && (
            <Alert severity={message.status === 'deferred' ? 'warning' : 'error'} sx={{ mb: 2 }}>
              {message.status === 'deferred' ? 'The last attempt was deferred: ' : 'Not delivered: '}
              {message.last_error}
            </Alert>
          )}
          <DetailList
            items={[
              ['To', message.email],
              ['From', message.from ?? '—'],
              ['Stream', message.stream],
              ['Source', SOURCE_LABELS[message.source]],
              ['Queued', formatDateTime(message.created_at, { seconds: true })],
              ['Sent', message.sent_at ? formatDateTime(message.sent_at, { seconds: true }) : 'not yet'],
              [
                'Tags',
                message.tags.length ? (
                  <Stack direction="row" spacing={0.5} component="span" sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
                    {message.tags.map((t) => (
                      <Chip key={t} size="small" variant="outlined" label={t} />
                    ))}
                  </Stack>
                ) : (
                  'none'
                ),
              ],
              [
                'Metadata',
                metadata.length ? (
                  <Box component="span" sx={{ display: 'block' }}>
                    {metadata.map(([k, v]) => (
                      <Box component="span" key={k} sx={{ display: 'block' }}>
                        <code>{k}</code>: {v}
                      </Box>
                    ))}
                  </Box>
                ) : (
                  'none'
                ),
              ],
            ]}
          />
          <Box sx={{ mt: 2, maxWidth: 720 }}>
            <CopyField id="message-id" label="Message-ID" value={message.message_id} />
          </Box>
        </CardContent>
      </Card>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'minmax(0, 2fr) minmax(0, 3fr)' }, gap: 2, alignItems: 'start' }}>
        <Card variant="outlined" component="section" aria-labelledby="timeline-title">
          <CardContent>
            <Typography variant="h6" component="h2" id="timeline-title" gutterBottom>
              Timeline
            </Typography>
            <Timeline entries={message.timeline} />
          </CardContent>
        </Card>
        <Card variant="outlined" component="section" aria-labelledby="copy-title">
          <CardContent>
            <Typography variant="h6" component="h2" id="copy-title" gutterBottom>
              Stored copy
            </Typography>
            <StoredCopy message={message} />
          </CardContent>
        </Card>
      </Box>
    </Stack>
  );
}
