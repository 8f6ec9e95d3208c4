/**
 * A contact's privacy actions on /people/users/edit/{id}, beside the page's heading (a data subject's requests):
 * "Download data" saves everything the project holds about the contact as contact-<id>.json (GET
 * {user}/contacts/{id}/export), and "Erase…" erases the contact for good (POST {user}/contacts/erase) once the
 * dialog's plain words are read and the contact's address is typed, then goes back to the contacts list.
 */
import { useState, type FormEvent } from 'react';
import { useNotify } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { Alert, Box, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Stack, TextField } from '@mui/material';
import DownloadIcon from '@mui/icons-material/Download';
import DeleteForeverIcon from '@mui/icons-material/DeleteForever';
import { resourcesByName } from '../../../../generated/resources.gen';
import { callOperation } from '../../data/gateway';
import { confirmsEmail, ERASE_CONSEQUENCES, erasedMessage, exportFileName } from './privacy';

/**
 * Not retried: the erasure is one transaction, and one re-sent after an answer was lost would be refused (the id is no
 * longer a contact), hiding that the first one succeeded.
 */
const NO_RETRY = { retries: 0, delayMs: 0 };

/** How long the downloaded file's object URL lives after the click started the download. */
const OBJECT_URL_LIFETIME_MS = 10_000;

/** saveJsonFile downloads `data` as the JSON file `fileName` (a Blob, its object URL and a temporary <a download>). */
function saveJsonFile(fileName: string, data: unknown): void {
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), OBJECT_URL_LIFETIME_MS);
}

/**
 * EraseContactDialog asks to erase the contact `email` for good: it says what is deleted, what stays and that it cannot
 * be undone, and enables "Erase for good" only once the address is typed. On success it toasts what was erased and goes
 * to the contacts list; a refusal shows the API's errors in the dialog.
 */
function EraseContactDialog({ id, email, onClose }: { id: string; email: string; onClose: () => void }) {
  const notify = useNotify();
  const navigate = useNavigate();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const ready = confirmsEmail(typed, email);

  const erase = async (event: FormEvent) => {
    event.preventDefault();
    if (!ready || busy) return;
    setBusy(true);
    setError('');
    try {
      const { data } = await callOperation('eraseContacts', { body: { ids: [id] } }, NO_RETRY);
      notify(erasedMessage(data), { type: 'success' });
      navigate(resourcesByName.contacts.route);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };

  return (
    <Dialog open onClose={() => !busy && onClose()} fullWidth maxWidth="sm" aria-labelledby="erase-contact-title" aria-describedby="erase-contact-text">
      <Box component="form" onSubmit={(e) => void erase(e)} noValidate>
        <DialogTitle id="erase-contact-title" sx={{ overflowWrap: 'anywhere' }}>
          Erase {email} for good?
        </DialogTitle>
        <DialogContent>
          <DialogContentText id="erase-contact-text">{ERASE_CONSEQUENCES}</DialogContentText>
          <TextField
            label="Type their email address to confirm"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            placeholder={email}
            disabled={busy}
            autoFocus
            fullWidth
            margin="normal"
            autoComplete="off"
            slotProps={{ htmlInput: { spellCheck: false, autoCapitalize: 'none', inputMode: 'email' } }}
          />
          {error && (
            <Alert severity="error" sx={{ mt: 1 }}>
              Couldn’t erase the contact: {error}
            </Alert>
          )}
        </DialogContent>
        <DialogActions sx={{ flexWrap: 'wrap', rowGap: 1 }}>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" color="error" variant="contained" disabled={!ready} loading={busy} loadingPosition="start" startIcon={<DeleteForeverIcon />}>
            {busy ? 'Erasing…' : 'Erase for good'}
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}

/**
 * ContactPrivacyActions is "Download data" and "Erase…" for the contact `id` whose address is `email`, laid out as items
 * of the heading's row: the buttons, then a failed download's error on a line of its own.
 */
export function ContactPrivacyActions({ id, email }: { id: string; email: string }) {
  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState('');
  const [erasing, setErasing] = useState(false);

  const download = async () => {
    if (downloading) return;
    setDownloading(true);
    setDownloadError('');
    try {
      saveJsonFile(exportFileName(id), await callOperation('exportContact', { path: { id } }));
    } catch (e) {
      setDownloadError((e as Error).message);
    } finally {
      setDownloading(false);
    }
  };

  return (
    <>
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
        {/* Busy, not disabled, while it runs: a disabled button would drop the keyboard's focus. */}
        <Button
          variant="outlined"
          size="small"
          startIcon={downloading ? <CircularProgress size={16} color="inherit" aria-hidden /> : <DownloadIcon />}
          aria-busy={downloading}
          aria-disabled={downloading}
          onClick={() => void download()}
        >
          {downloading ? 'Downloading…' : 'Download data'}
        </Button>
        <Button variant="outlined" size="small" color="error" startIcon={<DeleteForeverIcon />} aria-haspopup="dialog" onClick={() => setErasing(true)}>
          Erase…
        </Button>
      </Stack>
      {downloadError && (
        <Alert severity="error" onClose={() => setDownloadError('')} sx={{ flexBasis: '100%' }}>
          Couldn’t download the contact’s data: {downloadError}
        </Alert>
      )}
      {erasing && <EraseContactDialog id={id} email={email} onClose={() => setErasing(false)} />}
    </>
  );
}
