/**
 * The upload screen's confirm step: before a contact file is sent, its columns and first rows are
 * shown, each column with where it goes — a contact field, a metadata key, the metadata object, or "Don't import" —
 * first guessed by suggestMapping (the common exports' names: "Email Address", FIRSTNAME, "E-mail"…). Import sends
 * the file with that mapping; Cancel drops it. A CSV is previewed from its first 64 KB in the browser; an .xlsx file
 * is not previewed and is read by its column names on the server.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardActions,
  CardContent,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import {
  checkMapping,
  compactMapping,
  metadataKey,
  PREVIEW_BYTES,
  previewCsv,
  suggestMapping,
  type ColumnMapping,
  type FilePreview,
  type ImportTarget,
} from '../../domain/contactImport';

const FIELD_LABELS: Array<[ImportTarget, string]> = [
  ['email', 'Email'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['timezone', 'Time zone'],
  ['date_of_birth', 'Date of birth'],
];

/** The choices of one column's menu: the fields, its own metadata key (the one first suggested), the object, skip. */
function choicesFor(name: string, suggested: ImportTarget | undefined): Array<[ImportTarget, string]> {
  const own = suggested?.startsWith('json.') ? suggested : (`json.${metadataKey(name)}` as ImportTarget);
  return [...FIELD_LABELS, [own, `Metadata: ${own.slice(5)}`], ['json', 'Metadata (a JSON object)'], ['skip', "Don't import"]];
}

/** What a file's confirm step reads from it: a preview, or why there is none. */
type Read = { state: 'reading' } | { state: 'preview'; preview: FilePreview } | { state: 'none'; reason: string; problem: boolean };

/**
 * ColumnMappingCard shows `file`'s columns for confirmation. `onImport(mapping)` sends it (mapping undefined: read by
 * name on the server); `onCancel` drops it. `more` is how many other files wait after this one.
 */
export function ColumnMappingCard({
  file,
  more,
  onImport,
  onCancel,
}: {
  file: File;
  more: number;
  onImport: (mapping: ColumnMapping | undefined) => void;
  onCancel: () => void;
}) {
  const [read, setRead] = useState<Read>({ state: 'reading' });
  const [mapping, setMapping] = useState<ColumnMapping>({});
  const [suggested, setSuggested] = useState<ColumnMapping>({});
  const title = useRef<HTMLHeadingElement>(null);
  const targetOf = (name: string): ImportTarget => (Object.prototype.hasOwnProperty.call(mapping, name) ? mapping[name] : 'skip') as ImportTarget;

  useEffect(() => {
    let live = true;
    setRead({ state: 'reading' });
    if (/\.xlsx$/i.test(file.name)) {
      setRead({
        state: 'none',
        problem: false,
        reason:
          'An .xlsx file is not previewed here: its columns are read by name on the server (email, first_name, last_name, timezone, date_of_birth, json.<key>, and the common exports\u2019 names such as "Email Address" or "First Name"). To choose where each column goes, save the sheet as CSV.',
      });
      return;
    }
    void file
      .slice(0, PREVIEW_BYTES)
      .text()
      .then((text) => {
        if (!live) return;
        const r = previewCsv(text, file.size <= PREVIEW_BYTES);
        if ('error' in r) setRead({ state: 'none', problem: true, reason: `This file cannot be previewed: ${r.error}. Importing it will report the problem.` });
        else {
          setRead({ state: 'preview', preview: r.preview });
          const guess = suggestMapping(r.preview.header);
          setMapping(guess);
          setSuggested(guess);
        }
      })
      .catch((err: Error) => live && setRead({ state: 'none', problem: true, reason: `This file cannot be read: ${err.message}` }));
    return () => {
      live = false;
    };
  }, [file]);

  // What is sent: only the columns mapped otherwise than by their names (compactMapping).
  const toSend = useMemo(() => (read.state === 'preview' ? compactMapping(read.preview.header, mapping) : undefined), [mapping, read]);
  const problem = useMemo(() => {
    if (read.state !== 'preview' || !toSend) return undefined;
    if (!Object.values(mapping).includes('email')) return 'Choose the column that holds the email addresses.';
    const p = checkMapping(toSend);
    return p ? `${p[0].toUpperCase()}${p.slice(1)}.` : undefined;
  }, [mapping, read.state, toSend]);

  // The card asks for a decision: focus its title once it is read, so a keyboard or screen-reader user lands on it.
  useEffect(() => {
    if (read.state !== 'reading') title.current?.focus();
  }, [read.state]);

  const titleId = useId();
  return (
    <Card variant="outlined" component="section" aria-labelledby={titleId}>
      <CardContent>
        <Stack spacing={2}>
          <Typography variant="h6" component="h2" id={titleId} ref={title} tabIndex={-1} sx={{ overflowWrap: 'anywhere' }}>
            Check the columns of {file.name}
          </Typography>
          {read.state === 'reading' && <Typography color="text.secondary">Reading the first rows…</Typography>}
          {read.state === 'none' && <Alert severity={read.problem ? 'warning' : 'info'}>{read.reason}</Alert>}
          {read.state === 'preview' && (
            <>
              <Typography>
                Choose where each column goes. Columns are matched by their names; anything else is kept as metadata on the contact unless you choose
                &ldquo;Don&rsquo;t import&rdquo;. The first {read.preview.rows.length === 1 ? 'row' : `${read.preview.rows.length} rows`} of the file:
              </Typography>
              <TableContainer sx={{ maxWidth: '100%', overflowX: 'auto' }} tabIndex={0} aria-label={`Columns of ${file.name}`} role="region">
                <Table size="small" aria-label={`First rows of ${file.name}`}>
                  <TableHead>
                    <TableRow>
                      {read.preview.header.map((name, i) => (
                        <TableCell key={i} component="th" scope="col" sx={{ minWidth: 170, verticalAlign: 'top' }}>
                          <Typography variant="body2" sx={{ fontWeight: 'bold', mb: 1, overflowWrap: 'anywhere' }}>
                            {name || `(column ${i + 1})`}
                          </Typography>
                          <TextField
                            select
                            size="small"
                            fullWidth
                            label={name ? `Import “${name}” as` : `Import column ${i + 1} (no name) as`}
                            value={targetOf(name)}
                            onChange={(e) => setMapping((m) => ({ ...m, [name]: e.target.value as ImportTarget }))}
                          >
                            {choicesFor(
                              name,
                              (Object.prototype.hasOwnProperty.call(suggested, name) ? suggested[name] : undefined) as ImportTarget | undefined,
                            ).map(([value, label]) => (
                              <MenuItem key={value} value={value}>
                                {label}
                              </MenuItem>
                            ))}
                          </TextField>
                        </TableCell>
                      ))}
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {read.preview.rows.map((row, r) => (
                      <TableRow key={r}>
                        {read.preview.header.map((_, c) => (
                          <TableCell
                            key={c}
                            sx={{
                              ...(targetOf(read.preview.header[c]) === 'skip' ? { color: 'text.secondary', textDecoration: 'line-through' } : {}),
                              overflowWrap: 'anywhere',
                            }}
                          >
                            {row[c] ?? ''}
                          </TableCell>
                        ))}
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </TableContainer>
              {problem && (
                <Alert severity="error" role="alert">
                  {problem}
                </Alert>
              )}
            </>
          )}
        </Stack>
      </CardContent>
      <CardActions sx={{ flexWrap: 'wrap', gap: 1, px: 2, pb: 2 }}>
        <Button variant="contained" disabled={read.state === 'reading' || !!problem} onClick={() => onImport(read.state === 'preview' ? mapping : undefined)}>
          Import {file.name.length > 40 ? 'file' : file.name}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
        {more > 0 && (
          <Box component="span" sx={{ color: 'text.secondary', typography: 'body2' }}>
            {more} more {more === 1 ? 'file waits' : 'files wait'} to be checked
          </Box>
        )}
      </CardActions>
    </Card>
  );
}
