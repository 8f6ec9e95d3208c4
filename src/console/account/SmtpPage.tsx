/**
 * SMTP (/account/smtp; openapi/email.yaml): how applications send through SMTP submission, and the project's message
 * streams. The connection box words the list answer's host and ports (a port this install does not listen on is
 * "off") with AUTH PLAIN or LOGIN and snippets for common clients (smtpSetup.ts). The credentials — list, create,
 * revoke — are listSmtpCredentials' `x-screen` (ManagedList); a new credential's password is in the create answer only,
 * so it is shown on its card, with a copy button, until hidden or the page is left, and never again. The streams
 * section lists each stream's kind, its 30 days of counts and a tracking switch (updateStream).
 */
import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import { useNotify } from 'react-admin';
import type { WidgetProps } from '@rjsf/utils';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  FormControlLabel,
  Stack,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
  useMediaQuery,
} from '@mui/material';
import type { ListRow, OperationResponse } from '../data/apiTypes';
import { callOperation } from '../data/gateway';
import { screensByName } from '../../../generated/screens.gen';
import { ManagedList, type Row } from '../resources/shared/ManagedList';
import { NativeSelect } from '../resources/shared/formWidgets';
import { DetailList } from '../resources/shared/DetailList';
import { formatDateTime } from '../dates';
import { CopyField } from './CopyField';
import { LoadStatus } from './LoadStatus';
import { connectionSnippets, portLines, preferredConnection } from './smtpSetup';

type Credential = ListRow<'listSmtpCredentials'>;
type Stream = ListRow<'listStreams'>;
type Connection = Pick<OperationResponse<'listSmtpCredentials'>, 'host' | 'ports'>;

/** The project's streams as the page loaded them (null until then), for the create form's stream select. */
const StreamsContext = createContext<Stream[] | null>(null);

/** StreamSelectWidget is the create form's `streamSelect`: a native select of the project's streams, named with their kind. */
function StreamSelectWidget(props: WidgetProps) {
  const streams = useContext(StreamsContext);
  const current = props.value ? String(props.value) : '';
  const choices = streams
    ? streams.map((s) => ({ value: s.name, label: s.name === s.kind ? s.name : `${s.name} (${s.kind})` }))
    : [{ value: current, label: current ? `${current} (loading the streams…)` : 'Loading the streams…' }];
  return <NativeSelect {...props} fullWidth choices={choices} />;
}

const WIDGETS = { streamSelect: StreamSelectWidget };

/** ConnectionBox is what an application needs besides a credential: host, ports, authentication and snippets. */
function ConnectionBox({ connection }: { connection: Connection | null }) {
  if (!connection) return null;
  const preferred = preferredConnection(connection.ports);
  return (
    <Card variant="outlined" component="section" aria-labelledby="smtp-connection-title">
      <CardContent>
        <Typography variant="h6" component="h2" id="smtp-connection-title" gutterBottom>
          Connection
        </Typography>
        <Box sx={{ maxWidth: 560 }}>
          <CopyField id="smtp-host" label="Host" value={connection.host} />
        </Box>
        <DetailList
          items={[
            ...portLines(connection.ports).map(({ label, value }): [string, string] => [label, value]),
            ['Authentication', 'AUTH PLAIN or LOGIN, with a credential’s user name and password'],
          ]}
        />
        {preferred ? (
          <>
            <Typography variant="subtitle2" component="h3" sx={{ mt: 2, mb: 1 }}>
              Settings for your application (port {preferred.port}, the user name and password read from SMTP_USER and SMTP_PASSWORD)
            </Typography>
            <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 560px), 1fr))', gap: 2 }}>
              {connectionSnippets(connection.host, preferred).map((s) => (
                <CopyField key={s.label} id={`smtp-snippet-${s.label.replace(/\W+/g, '-').toLowerCase()}`} label={s.label} value={s.text} multiline />
              ))}
            </Box>
          </>
        ) : (
          <Alert severity="warning" sx={{ mt: 1 }}>
            SMTP submission is off on this install: credentials can be made, but no port takes mail until an operator sets SUBMISSION_PORT or
            SUBMISSION_TLS_PORT.
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}

/** CredentialCard is one credential; `password` is its password while the page still has it (just created). */
function CredentialCard({ credential, password, onHide }: { credential: Credential; password?: string; onHide: () => void }) {
  const revoked = credential.revoked_at !== null;
  return (
    <>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
        <Typography variant="h6" component="h2" sx={{ overflowWrap: 'anywhere', mr: 1 }}>
          {credential.name}
        </Typography>
        <Chip size="small" color={revoked ? 'default' : 'success'} label={revoked ? 'Revoked' : 'Active'} />
      </Stack>
      <DetailList
        items={[
          ['User name', <code key="u">{credential.username}</code>],
          ['Stream', credential.stream],
          ['Rate', `${credential.rate_per_minute.toLocaleString()} messages a minute`],
          ['Created', formatDateTime(credential.created_at)],
          ['Last used', credential.last_used_at ? formatDateTime(credential.last_used_at) : 'never'],
          ...(revoked ? ([['Revoked', formatDateTime(credential.revoked_at)]] as Array<[string, string]>) : []),
        ]}
      />
      {password && !revoked && (
        <Stack spacing={1} sx={{ mt: 2, maxWidth: 640 }}>
          <Alert severity="warning">Copy the password now: it is not shown again. If it is lost, create another credential and revoke this one.</Alert>
          <CopyField id={`password-${credential.id}`} label="Password" value={password} />
          <Box>
            <Button size="small" onClick={onHide}>
              I have copied it, hide it
            </Button>
          </Box>
        </Stack>
      )}
    </>
  );
}

/** StreamsSection lists the project's streams with their 30-day counts and a switch for opens and clicks tracking. */
function StreamsSection({
  streams,
  error,
  onRetry,
  onChanged,
}: {
  streams: Stream[] | null;
  error: string;
  onRetry: () => void;
  onChanged: (s: Stream) => void;
}) {
  const notify = useNotify();
  const [busy, setBusy] = useState('');
  const narrow = useMediaQuery('(max-width:599px)', { noSsr: true });
  const toggle = async (stream: Stream, tracking: boolean) => {
    setBusy(stream.name);
    try {
      onChanged((await callOperation('updateStream', { path: { name: stream.name }, body: { tracking } })).data);
      notify(tracking ? `Opens and clicks are tracked on ${stream.name}` : `Opens and clicks are no longer tracked on ${stream.name}`, { type: 'success' });
    } catch (e) {
      notify(`Couldn’t change the tracking of ${stream.name}: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy('');
    }
  };
  const trackingSwitch = (s: Stream) => (
    <FormControlLabel
      control={
        <Switch
          checked={s.tracking}
          disabled={busy === s.name}
          onChange={(e) => void toggle(s, e.target.checked)}
          slotProps={{ input: { 'aria-label': `Track opens and clicks on ${s.name}` } }}
        />
      }
      label={s.tracking ? 'On' : 'Off'}
      slotProps={{ typography: { variant: 'body2' } }}
    />
  );
  const counts = (s: Stream) => `${s.counts.sent} sent · ${s.counts.bounced} bounced · ${s.counts.complained} complaints · ${s.counts.opened} opened`;
  return (
    <Card variant="outlined" component="section" aria-labelledby="streams-title">
      <CardContent>
        <Typography variant="h6" component="h2" id="streams-title">
          Message streams
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          A stream keeps mail of one kind apart. Transactional mail still reaches people who unsubscribed from marketing; broadcast mail does not. A credential
          sends on its stream, the API on the one it names. Tracking adds an open pixel and rewrites links; counts are for the last 30 days.
        </Typography>
        <LoadStatus rows={streams} error={error} onRetry={onRetry} loadingLabel="Loading message streams" emptyText="No message streams." />
        {!!streams?.length &&
          (narrow ? (
            <Stack component="ul" spacing={1} aria-label="Message streams" sx={{ listStyle: 'none', p: 0, m: 0 }}>
              {streams.map((s) => (
                <Card key={s.name} variant="outlined" component="li" data-testid={`stream-${s.name}`}>
                  <CardContent sx={{ pb: 1 }}>
                    <Typography variant="subtitle1" component="p" sx={{ fontWeight: 600 }}>
                      {s.name}
                    </Typography>
                    <DetailList
                      items={[
                        ['Kind', s.kind],
                        ['Tracking', trackingSwitch(s)],
                        ['30 days', counts(s)],
                      ]}
                    />
                  </CardContent>
                </Card>
              ))}
            </Stack>
          ) : (
            <Box sx={{ overflowX: 'auto' }}>
              <Table size="small" aria-label="Message streams">
                <TableHead>
                  <TableRow>
                    <TableCell>Stream</TableCell>
                    <TableCell>Kind</TableCell>
                    <TableCell>Opens and clicks tracked</TableCell>
                    <TableCell align="right">Sent</TableCell>
                    <TableCell align="right">Bounced</TableCell>
                    <TableCell align="right">Complaints</TableCell>
                    <TableCell align="right">Opened</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {streams.map((s) => (
                    <TableRow key={s.name} data-testid={`stream-${s.name}`}>
                      <TableCell>
                        {s.name}
                        {s.description && (
                          <Typography variant="body2" color="text.secondary">
                            {s.description}
                          </Typography>
                        )}
                      </TableCell>
                      <TableCell>{s.kind}</TableCell>
                      <TableCell>{trackingSwitch(s)}</TableCell>
                      <TableCell align="right">{s.counts.sent}</TableCell>
                      <TableCell align="right">{s.counts.bounced}</TableCell>
                      <TableCell align="right">{s.counts.complained}</TableCell>
                      <TableCell align="right">{s.counts.opened}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </Box>
          ))}
      </CardContent>
    </Card>
  );
}

/** SmtpPage is /account/smtp: the connection box, the credentials' managed screen and the message streams. */
export function SmtpPage() {
  const [connection, setConnection] = useState<Connection | null>(null);
  // Passwords of the credentials made on this page, by id: shown until hidden or the page is left.
  const [fresh, setFresh] = useState<Record<string, string>>({});
  const [streams, setStreams] = useState<Stream[] | null>(null);
  const [streamsError, setStreamsError] = useState('');

  const loadStreams = useCallback(async () => {
    setStreamsError('');
    try {
      setStreams((await callOperation('listStreams')).data);
    } catch (e) {
      setStreamsError(`Couldn’t load the message streams: ${(e as Error).message}`);
    }
  }, []);
  useEffect(() => {
    void loadStreams();
  }, [loadStreams]);

  const onLoaded = useCallback((answer: Record<string, unknown>) => {
    const { host, ports } = answer as Connection;
    setConnection({ host, ports });
  }, []);

  return (
    <StreamsContext.Provider value={streams}>
      <Stack spacing={3}>
        <ManagedList
          definition={screensByName.smtp}
          widgets={WIDGETS}
          canDelete={(row) => !row.revoked_at}
          onLoaded={onLoaded}
          onCreated={(row: Row) => setFresh((known) => ({ ...known, [row.id]: String(row.password) }))}
          renderCard={(row) => (
            <CredentialCard
              credential={row as Row & Credential}
              password={fresh[row.id]}
              onHide={() =>
                setFresh((known) => {
                  const { [row.id]: _hidden, ...rest } = known;
                  return rest;
                })
              }
            />
          )}
        >
          <ConnectionBox connection={connection} />
        </ManagedList>
        <StreamsSection
          streams={streams}
          error={streamsError}
          onRetry={() => void loadStreams()}
          onChanged={(s) => setStreams((list) => list?.map((x) => (x.name === s.name ? s : x)) ?? null)}
        />
      </Stack>
    </StreamsContext.Provider>
  );
}
