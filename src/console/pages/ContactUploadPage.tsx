/**
 * The contact file upload screens (spec part 2 §2 Contacts /people/users/new/bulk and Segments
 * /people/segments/new/bulk/2, §4 "File upload lifecycle", §5 Uploads, §7 Contacts "File upload", §8, §9 Upload):
 * a drop zone that also opens the file picker (click, Enter or Space), a progress table (File, Uploading, Processing),
 * explanatory text, the sample file and the formatting rules.
 *
 * Each accepted file is first shown for confirmation (ColumnMappingCard: its columns, where each goes, its first
 * rows), then uploaded in turn (one PUT at a time, so big files do not split the bandwidth and the status
 * polls keep a connection), then its import is polled at the size-dependent interval of src/domain/contactUpload.ts
 * until it is done or fails. Refused rows are listed by line, and so are rows merged into an earlier row of the same
 * address in another letter case. Files refused by extension or size are listed at once and never sent. Every failure is
 * an error toast and stays, in red, on its file's row (spec part 2 §8). In segment mode the file's contacts also become
 * a new segment named after the file, linked once known.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { useNotify } from 'react-admin';
import { useDropzone } from 'react-dropzone';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Card,
  CardContent,
  LinearProgress,
  Link,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import {
  describeProcessingError,
  formatBytes,
  importCounts,
  isProcessingDone,
  newUploadItem,
  pollIntervalMs,
  processingProgress,
  REQUIREMENTS_MESSAGE,
  rejectionMessage,
  segmentNameForFile,
  sortContactFiles,
  summariseProcessingErrors,
  withError,
  withStatus,
  withUploaded,
  withUploadProgress,
  type RejectedFile,
  type UploadItem,
} from '../../domain/contactUpload';
import { ContactUploadError, getUploadStatus, getUploadUrl, putFile, type UploadMode } from '../data/contactUpload';
import { ContactFileRules } from './ContactFileRules';
import { ColumnMappingCard } from './ColumnMappingCard';
import type { ColumnMapping } from '../../domain/contactImport';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const messagesOf = (err: unknown): string[] => (err instanceof ContactUploadError ? err.messages : [(err as Error).message || String(err)]);

const percent = (share: number) => `${Math.round(share * 100)}%`;

function ErrorLines({ errors }: { errors: string[] }) {
  return (
    <>
      {errors.map((e, i) => (
        <Typography key={i} variant="body2" color="error" sx={{ overflowWrap: 'anywhere' }}>
          {e}
        </Typography>
      ))}
    </>
  );
}

function UploadingCell({ item }: { item: UploadItem }) {
  if (item.phase === 'waiting')
    return (
      <Typography variant="body2" color="text.secondary">
        Waiting
      </Typography>
    );
  const uploadFailed = !item.s3Key && item.phase === 'failed';
  return (
    <Stack spacing={0.5}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <LinearProgress
          variant="determinate"
          value={item.progress * 100}
          aria-label={`Upload of ${item.filename}`}
          color={uploadFailed ? 'error' : 'primary'}
          sx={{ flex: 1, minWidth: 80 }}
        />
        <Typography variant="body2" sx={{ minWidth: 40, textAlign: 'right' }}>
          {percent(item.progress)}
        </Typography>
      </Stack>
      {uploadFailed && <ErrorLines errors={item.errors} />}
    </Stack>
  );
}

function ProcessingCell({ item, mode, onRetry }: { item: UploadItem; mode: UploadMode; onRetry: () => void }) {
  if (!item.s3Key)
    return (
      <Typography variant="body2" color="text.secondary">
        —
      </Typography>
    );
  const counts = (
    <Typography variant="body2" data-testid={`import-counts-${item.filename}`}>
      {importCounts(item)}
    </Typography>
  );
  const segment = mode === 'segment' && item.segmentId && (
    <Link component={RouterLink} to={`/people/segments/edit/${item.segmentId}`}>
      Open segment {segmentNameForFile(item.filename)}
    </Link>
  );
  switch (item.phase) {
    case 'success':
      // Every row imported is a success; some refused is not: their lines are listed below.
      return (
        <Stack spacing={0.5}>
          <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
            {item.rowsFailed > 0 && <WarningAmberIcon color="warning" fontSize="small" aria-hidden />}
            <Typography variant="body2" sx={{ color: item.rowsFailed ? 'text.primary' : 'success.dark', fontWeight: 'bold' }}>
              {item.rowsFailed ? 'Imported with refused rows' : 'Success'}
            </Typography>
          </Stack>
          {counts}
          {segment}
        </Stack>
      );
    case 'failed':
      return (
        <Stack spacing={0.5}>
          <ErrorLines errors={item.errors} />
          {(item.rowsImported > 0 || item.rowsMerged > 0 || item.rowsFailed > 0) && counts}
          {segment}
        </Stack>
      );
    case 'unknown':
      return (
        <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
          <ErrorLines errors={item.errors} />
          <Button size="small" onClick={onRetry}>
            Check again
          </Button>
        </Stack>
      );
    default: {
      const share = processingProgress(item.numTotal, item.numInProgress);
      return (
        <Stack spacing={0.5}>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <LinearProgress variant="determinate" value={share * 100} aria-label={`Processing of ${item.filename}`} sx={{ flex: 1, minWidth: 80 }} />
            <Typography variant="body2" sx={{ minWidth: 40, textAlign: 'right' }}>
              {percent(share)}
            </Typography>
          </Stack>
          {item.rowsImported > 0 && (
            <Typography variant="body2" color="text.secondary">
              {item.rowsImported} rows imported so far
            </Typography>
          )}
        </Stack>
      );
    }
  }
}

/**
 * RowList: a file's rows by line under a heading (the refused rows, in red; the merged rows), the first ones listed
 * and the rest counted, with the rows the server counted but did not keep (it keeps the first 1,000 of a file).
 */
function RowList({
  label,
  heading,
  rows,
  count,
  noun,
  kept,
  error = false,
  testId,
}: {
  label: string;
  heading: string;
  rows: Parameters<typeof summariseProcessingErrors>[0];
  count: number;
  noun: string;
  kept: string;
  error?: boolean;
  testId?: string;
}) {
  const { shown, more, unrecordedRows } = summariseProcessingErrors(rows, count);
  if (!shown.length && !unrecordedRows) return null;
  return (
    <TableRow data-testid={testId}>
      <TableCell colSpan={3} sx={{ pt: 0 }}>
        <Typography variant="body2" sx={{ fontWeight: 'bold' }}>
          {heading}
        </Typography>
        <Box component="ul" aria-label={label} sx={{ m: 0, pl: 3, color: error ? 'error.main' : undefined, maxHeight: 320, overflowY: 'auto' }}>
          {shown.map((e, i) => (
            <Typography component="li" variant="body2" key={i}>
              {describeProcessingError(e)}
            </Typography>
          ))}
          {more > 0 && (
            <Typography component="li" variant="body2">
              and {more} more
            </Typography>
          )}
        </Box>
        {unrecordedRows > 0 && (
          <Typography variant="body2" color={error ? 'error' : undefined}>
            {unrecordedRows} more {noun} {unrecordedRows === 1 ? 'row is' : 'rows are'} counted but not listed (the server keeps the first 1,000 {kept} of a
            file).
          </Typography>
        )}
      </TableCell>
    </TableRow>
  );
}

/**
 * MergedRows lists a file's rows merged into an earlier row of the same address in another letter case (not applied),
 * by line like the refused rows; they are not errors, so not in red.
 */
function MergedRows({ item }: { item: UploadItem }) {
  // The server lists them once the import has ended; until then only their count is known.
  if (item.phase !== 'success' && item.phase !== 'failed') return null;
  const label = `Merged rows of ${item.filename}`;
  return (
    <RowList
      label={label}
      heading={`${label} (the same address as an earlier row, in another case; not applied):`}
      rows={item.mergedRows}
      count={item.rowsMerged}
      noun="merged"
      kept="merged rows"
      testId={`merged-rows-${item.filename}`}
    />
  );
}

/** RefusedRows lists a file's refused rows by line, in red. */
function RefusedRows({ item }: { item: UploadItem }) {
  const label = `Refused rows of ${item.filename}`;
  return <RowList label={label} heading={`${label}:`} rows={item.processingErrors} count={item.rowsFailed} noun="refused" kept="problems" error />;
}

/** ContactUploadPage is /people/users/new/bulk (`mode` contacts) and /people/segments/new/bulk/2 (`mode` segment). */
export function ContactUploadPage({ mode }: { mode: UploadMode }) {
  const notify = useNotify();
  const [items, setItems] = useState<UploadItem[]>([]);
  const [rejected, setRejected] = useState<RejectedFile<File>[]>([]);
  /** Files picked but not yet confirmed, in the order picked; the first is shown for confirmation. */
  const [toConfirm, setToConfirm] = useState<Array<{ key: number; file: File }>>([]);
  const picked = useRef(0);
  const mappings = useRef(new Map<string, ColumnMapping | undefined>());
  const files = useRef(new Map<string, File>());
  const nextId = useRef(0);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const alive = useRef(true);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const update = useCallback((id: string, change: (item: UploadItem) => UploadItem) => {
    if (alive.current) setItems((list) => list.map((it) => (it.id === id ? change(it) : it)));
  }, []);

  const fail = useCallback(
    (id: string, err: unknown, phase: 'failed' | 'unknown' = 'failed') => {
      const messages = messagesOf(err);
      update(id, (it) => withError(it, messages, phase));
      if (alive.current) notify(messages.join(': '), { type: 'error' });
    },
    [notify, update],
  );

  /** poll reads the import's status until it is done, failed, or the page is left. */
  const poll = useCallback(
    async (id: string, s3Key: string, size: number) => {
      while (alive.current) {
        try {
          const status = await getUploadStatus(s3Key);
          if (!alive.current) return;
          update(id, (it) => withStatus(it, status));
          if (status.errors.length) notify(status.errors.join('; '), { type: 'error' });
          if (isProcessingDone(status)) return;
        } catch (err) {
          fail(id, err, 'unknown');
          return;
        }
        await sleep(pollIntervalMs(size));
      }
    },
    [fail, notify, update],
  );

  /** upload gets the URL and PUTs one file, then starts polling its import (without holding the queue). */
  const upload = useCallback(
    async (id: string) => {
      const file = files.current.get(id);
      // A file still waiting when the page is left is not sent (one already being sent finishes and is imported).
      if (!file || !alive.current) return;
      update(id, (it) => withUploadProgress(it, 0, file.size));
      try {
        const url = await getUploadUrl(mode, file, mappings.current.get(id));
        mappings.current.delete(id);
        const s3Key = await putFile(url, file, (loaded, total) => update(id, (it) => withUploadProgress(it, loaded, total)));
        update(id, (it) => withUploaded(it, s3Key));
        files.current.delete(id);
        void poll(id, s3Key, file.size);
      } catch (err) {
        files.current.delete(id);
        mappings.current.delete(id);
        fail(id, err);
      }
    },
    [fail, mode, poll, update],
  );

  const onDrop = useCallback(
    (dropped: File[]) => {
      const { accepted, rejected: refused } = sortContactFiles(dropped);
      setRejected(refused);
      const message = rejectionMessage(refused);
      if (message) notify(message, { type: 'error' });
      setToConfirm((list) => [...list, ...accepted.map((file) => ({ key: ++picked.current, file }))]);
    },
    [notify],
  );

  /** confirm sends the first file waiting for confirmation with its column mapping (undefined: read by name). */
  const confirm = (mapping: ColumnMapping | undefined) => {
    const file = toConfirm[0]?.file;
    if (!file) return;
    setToConfirm((list) => list.slice(1));
    const id = String(++nextId.current);
    files.current.set(id, file);
    mappings.current.set(id, mapping);
    setItems((list) => [...list, newUploadItem(id, file)]);
    queue.current = queue.current.then(() => upload(id));
  };

  const { getRootProps, getInputProps, isDragActive } = useDropzone({ onDrop, multiple: true });

  // Leaving the tab stops an upload that has not finished; processing goes on without the page.
  // Files still to confirm count too: leaving drops them.
  const sending = toConfirm.length > 0 || items.some((it) => it.phase === 'waiting' || it.phase === 'uploading');
  useEffect(() => {
    if (!sending) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [sending]);

  const retry = (item: UploadItem) => {
    if (!item.s3Key) return;
    update(item.id, (it) => ({ ...it, phase: 'processing', errors: [] }));
    void poll(item.id, item.s3Key, item.totalBytes);
  };

  return (
    <Stack spacing={2} sx={{ maxWidth: 1100 }}>
      <Typography variant="h5" component="h1">
        {mode === 'segment' ? 'New Segment from File' : 'Upload Contacts'}
      </Typography>
      {mode === 'segment' ? (
        <Typography>
          Upload a CSV or XLSX file of contacts to make a segment of them. The segment is named after the file (its name without .csv or .xlsx) and appears in
          the segments list once the file has been read; every valid row adds its contact to it (a file refused as a whole makes no segment). Each row also
          creates the contact, or updates the contact with that email, as a contact upload does.
        </Typography>
      ) : (
        <Typography>
          Upload a CSV or XLSX file of contacts: each valid row creates a contact, or updates the contact with that email. The file is imported on the server;
          you can follow its progress here, and rows with a problem are listed with their line numbers so you can correct and upload them again.
        </Typography>
      )}
      <Card variant="outlined">
        <CardContent>
          {/* The input sits beside the zone, not in it: a focusable control inside a button is nested interaction (axe). */}
          <input {...getInputProps({ accept: '.csv,.xlsx', 'aria-label': 'CSV or XLSX files' })} />
          <Box
            {...getRootProps({ role: 'button' })}
            sx={{
              border: '2px dashed',
              borderColor: isDragActive ? 'primary.main' : 'grey.500',
              borderRadius: 1,
              p: 4,
              textAlign: 'center',
              cursor: 'pointer',
              bgcolor: isDragActive ? 'action.hover' : undefined,
              '&:focus-visible': { outline: '3px solid', outlineColor: 'primary.main', outlineOffset: 2 },
            }}
          >
            <UploadFileIcon color="primary" sx={{ fontSize: 40 }} aria-hidden />
            <Typography>Drag and drop CSV or XLSX files here, or click to choose files</Typography>
            <Typography variant="body2" color="text.secondary">
              .csv or .xlsx, 1 byte to 2 GB each; several files at once are fine.
            </Typography>
          </Box>
        </CardContent>
      </Card>
      {rejected.length > 0 && (
        <Alert severity="error" onClose={() => setRejected([])}>
          <AlertTitle>{REQUIREMENTS_MESSAGE}:</AlertTitle>
          <Box component="ul" aria-label="Refused files" sx={{ m: 0, pl: 3 }}>
            {rejected.map((r, i) => (
              <li key={i}>{r.reason}</li>
            ))}
          </Box>
        </Alert>
      )}
      {toConfirm.length > 0 && (
        <ColumnMappingCard
          key={toConfirm[0].key}
          file={toConfirm[0].file}
          more={toConfirm.length - 1}
          onImport={confirm}
          onCancel={() => setToConfirm((list) => list.slice(1))}
        />
      )}
      {items.length > 0 && (
        <TableContainer component={Card} variant="outlined">
          <Table size="small" aria-label="Uploads">
            <TableHead>
              <TableRow>
                <TableCell component="th" scope="col" sx={{ width: '35%' }}>
                  File
                </TableCell>
                <TableCell component="th" scope="col" sx={{ width: '25%' }}>
                  Uploading
                </TableCell>
                <TableCell component="th" scope="col">
                  Processing
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {items.map((item) => [
                <TableRow key={item.id} data-testid={`upload-${item.filename}`} sx={{ verticalAlign: 'top' }}>
                  <TableCell component="th" scope="row" sx={{ overflowWrap: 'anywhere' }}>
                    {item.filename}
                    <Typography variant="body2" color="text.secondary">
                      {formatBytes(item.totalBytes)}
                    </Typography>
                  </TableCell>
                  <TableCell>
                    <UploadingCell item={item} />
                  </TableCell>
                  <TableCell>
                    <ProcessingCell item={item} mode={mode} onRetry={() => retry(item)} />
                  </TableCell>
                </TableRow>,
                <RefusedRows key={`${item.id}-errors`} item={item} />,
                <MergedRows key={`${item.id}-merged`} item={item} />,
              ])}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <Card variant="outlined">
        <CardContent>
          <ContactFileRules />
        </CardContent>
      </Card>
    </Stack>
  );
}
