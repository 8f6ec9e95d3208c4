/**
 * The event details dialog of the Events screen (spec part 1 §2 Events screen, §3 Event): a parsed grid (event_name,
 * bounce_type, click_link, email, error, save_copy_error, bounce_code, occurred) or the raw JSON with a Copy button.
 * The raw view hides sensitive keys (company and project names, bucket, key, password) at any depth.
 */
import { useId, useMemo, useState } from 'react';
import { useNotify } from 'react-admin';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Tab, Table, TableBody, TableCell, TableRow, Tabs } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { parsedEvent, rawEventJson, type EventRecord } from '../account/eventDetails';

type View = 'parsed' | 'raw';

/** EventDetailsDialog shows one event; closed while `event` is null. */
export function EventDetailsDialog({ event, onClose }: { event: EventRecord | null; onClose: () => void }) {
  const notify = useNotify();
  const [view, setView] = useState<View>('parsed');
  const id = useId();
  const titleId = `${id}-title`;
  // The last event shown stays rendered while the dialog closes; a newly opened event starts on the parsed view.
  const [shown, setShown] = useState<EventRecord | null>(event);
  const [wasOpen, setWasOpen] = useState(false);
  if (event && event !== shown) setShown(event);
  if (!!event !== wasOpen) {
    setWasOpen(!!event);
    if (event) setView('parsed');
  }
  const raw = useMemo(() => (shown ? rawEventJson(shown) : ''), [shown]);
  const rows = useMemo(() => (shown ? parsedEvent(shown) : []), [shown]);

  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('the clipboard is not available on this page');
      await navigator.clipboard.writeText(raw);
      notify('Copied the event JSON to the clipboard', { type: 'success' });
    } catch (error) {
      notify(`Couldn’t copy the event JSON: ${(error as Error).message}`, { type: 'error' });
    }
  };

  return (
    <Dialog open={!!event} onClose={onClose} aria-labelledby={titleId} maxWidth="md" fullWidth>
      <DialogTitle id={titleId}>Event details</DialogTitle>
      <Tabs value={view} onChange={(_, v: View) => setView(v)} aria-label="Event details view" sx={{ px: 3 }}>
        <Tab value="parsed" label="Parsed" id={`${id}-tab-parsed`} aria-controls={`${id}-panel-parsed`} />
        <Tab value="raw" label="Raw JSON" id={`${id}-tab-raw`} aria-controls={`${id}-panel-raw`} />
      </Tabs>
      <DialogContent dividers>
        <Box role="tabpanel" id={`${id}-panel-parsed`} aria-labelledby={`${id}-tab-parsed`} hidden={view !== 'parsed'}>
          <Table size="small" aria-label="Parsed event">
            <TableBody>
              {rows.map(({ field, value }) => (
                <TableRow key={field}>
                  <TableCell component="th" scope="row" sx={{ fontFamily: 'monospace', width: 180, verticalAlign: 'top' }}>
                    {field}
                  </TableCell>
                  <TableCell sx={{ wordBreak: 'break-word' }}>{value}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
        <Box role="tabpanel" id={`${id}-panel-raw`} aria-labelledby={`${id}-tab-raw`} hidden={view !== 'raw'}>
          <Box
            component="pre"
            aria-label="Raw event JSON"
            tabIndex={0}
            sx={{ m: 0, p: 1.5, bgcolor: 'action.hover', borderRadius: 1, overflow: 'auto', maxHeight: '60vh', fontSize: 13 }}
          >
            {raw}
          </Box>
        </Box>
      </DialogContent>
      <DialogActions>
        {view === 'raw' && (
          <Button startIcon={<ContentCopyIcon />} onClick={() => void copy()}>
            Copy
          </Button>
        )}
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
