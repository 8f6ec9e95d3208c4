/**
 * The formatting rules of a contact file, shown on the upload screens (spec part 2 §2 Contacts "explanatory text, a
 * sample file and formatting rules"). Every rule is what the import really does: src/domain/contactImport.ts (columns,
 * cells, row errors) and src/server/core/contacts/import.ts (CSV/XLSX reading, merging, repeated emails). Change them together.
 */
import { Box, Link, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { MAX_SHOWN_PROCESSING_ERRORS } from '../../domain/contactUpload';

/** Where Vite serves public/samples/contacts-sample.csv from, in development and in the built console. */
export const SAMPLE_FILE_URL = '/samples/contacts-sample.csv';

const COLUMNS: Array<[string, string]> = [
  [
    'email',
    'Required. A valid address: one @, with a dot in the part after it. Contacts are matched by email, ignoring letter case: a contact that exists is updated, any other is created.',
  ],
  ['first_name, last_name', 'Text.'],
  [
    'timezone',
    'An IANA time zone name such as America/New_York, Europe/Paris or UTC; emails sent in the contact’s local time use it. Any other value refuses the row.',
  ],
  [
    'date_of_birth',
    'YYYY-MM-DD, e.g. 1990-02-28 (in an XLSX file a date cell works too). Stored as 11:59:59 UTC on that day. Any other format, or a day that does not exist, refuses the row.',
  ],
  [
    'json',
    'A JSON object, e.g. {"plan": "pro", "score": 42}; its keys are added to the contact’s metadata. In a CSV file put the cell in double quotes and double the quotes inside it: "{""plan"": ""pro""}". Anything but an object refuses the row.',
  ],
  [
    'json.<key>',
    'One metadata key, e.g. json.plan; the key keeps the letter case it is written in. The value is read as JSON when it is valid JSON (42 is a number, true a boolean, {"a": 1} an object), otherwise as text; null and undefined set the key to null. When json and json.<key> set the same key, json.<key> wins.',
  ],
];

/** ContactFileRules renders the sample file link and the formatting rules. */
export function ContactFileRules() {
  return (
    <Box sx={{ '& li': { mb: 0.5 } }}>
      <Typography variant="h6" component="h2" gutterBottom>
        File format
      </Typography>
      <Typography sx={{ mb: 1 }}>
        Start from the{' '}
        <Link href={SAMPLE_FILE_URL} download="contacts-sample.csv">
          sample file (contacts-sample.csv)
        </Link>
        : it shows every column.
      </Typography>
      <Box component="ul" sx={{ pl: 3, mt: 0 }}>
        <li>A CSV (.csv) or Excel (.xlsx) file of 1 byte to 2 GB. Several files can be uploaded at once.</li>
        <li>
          The first line of a CSV file, or the first row of the first worksheet of an XLSX file, names the columns, in any order and any letter case. Only{' '}
          <code>email</code> is required. The names other services export are matched too (&ldquo;Email Address&rdquo;, &ldquo;E-mail&rdquo;, FIRSTNAME,
          &ldquo;Last Name&rdquo;…), and before a CSV file is sent you can choose where each of its columns goes, keep it as metadata, or leave it out. A column
          that is still not one of those below, a column named twice or an empty column name stops the whole file: nothing of it is imported.
        </li>
        <li>Columns are separated by commas, semicolons or tabs: whichever the first line uses.</li>
      </Box>
      <Table size="small" aria-label="Columns of a contact file" sx={{ mb: 2 }}>
        <TableHead>
          <TableRow>
            <TableCell component="th" scope="col">
              Column
            </TableCell>
            <TableCell component="th" scope="col">
              What it holds
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {COLUMNS.map(([name, text]) => (
            <TableRow key={name}>
              <TableCell component="th" scope="row" sx={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
                <code>{name}</code>
              </TableCell>
              <TableCell>{text}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Box component="ul" sx={{ pl: 3, mt: 0 }}>
        <li>
          CSV: values separated by commas, in UTF-8 (a byte-order mark is fine). A value holding a comma, a double quote or a line break goes in double quotes,
          with its double quotes doubled. Empty lines are skipped; every other line has as many values as the header.
        </li>
        <li>
          XLSX: only the first worksheet is read. Empty cells at the end of a row may be left out, but a row with more cells than the header is refused. Numbers
          and true/false keep their type in metadata.
        </li>
        <li>
          An empty cell leaves the contact’s value as it is: an upload never clears a field. Metadata keys from the file are merged into the contact’s metadata;
          its other keys stay. An archived contact’s address makes a new contact.
        </li>
        <li>
          The same email on several rows of one file: the rows are applied in file order, so the later row wins for every cell it fills, and its empty cells
          keep what the earlier row gave. An address is the same whatever its letter case: a later row writing it in another case (ann@example.com after
          ANN@example.com) is merged into the first row, which is kept as written with its values; the merged row is not applied and is listed by line number. A
          contact that already exists keeps its address as stored.
        </li>
        <li>
          A row with a problem (an email without @ or with two @s, an unknown time zone, a date that is not YYYY-MM-DD, the wrong number of values, text that is
          not UTF-8) is refused and listed by line number (the header is line 1; in XLSX the row number), column and reason. Every other row is still imported.
          The first {MAX_SHOWN_PROCESSING_ERRORS} problems of a file are listed here and the server keeps the first 1,000; refused rows are all counted.
        </li>
      </Box>
    </Box>
  );
}
