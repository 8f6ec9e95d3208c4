/** The template editor's instructions (spec part 2 §2 Templates, §3 Template variables). */
import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { SENDER_PERSONA_VARIABLE_FIELDS, USER_VARIABLE_FIELDS } from '../../../domain/templateVariables';

const VARIABLES: Array<[string, string]> = [
  ...USER_VARIABLE_FIELDS.map((f): [string, string] => [`{{user.${f}}}`, `The contact’s ${f.replace(/_/g, ' ')}`]),
  ['{{user.json.<key>}}', 'A key of the contact’s metadata'],
  ...SENDER_PERSONA_VARIABLE_FIELDS.map((f): [string, string] => [`{{sender_persona.${f}}}`, `The sender persona’s ${f.replace(/_/g, ' ')}`]),
  ['{{unsubscribe_link}}', 'The contact’s unsubscribe link (required in marketing templates)'],
];

/** TemplateInstructions explains images, the unsubscribe link, links and the variables table. */
export function TemplateInstructions() {
  return (
    <Box component="section" sx={{ mt: 3 }}>
      <Typography variant="h6" component="h2" gutterBottom>
        Instructions
      </Typography>
      <Typography sx={{ mb: 1 }}>
        Marketing templates must include an unsubscribe link: add <code>{'<a href="{{unsubscribe_link}}">Unsubscribe</a>'}</code>. Images must be public URLs:
        use <strong>Upload image</strong> (PNG, JPEG, GIF or WebP, up to 5 MB; in the designer, its image picker) and the image is served from this service’s
        public <code>/template-images/</code> address. Links are ordinary <code>{'<a href="https://…">'}</code> tags (in the designer, select text or a button
        and set its link); clicks are tracked for you. A variable with no value renders blank.
      </Typography>
      <Table size="small" sx={{ tableLayout: 'fixed', '& code': { overflowWrap: 'anywhere' } }}>
        <TableHead>
          <TableRow>
            <TableCell>Variable</TableCell>
            <TableCell>Value</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {VARIABLES.map(([name, text]) => (
            <TableRow key={name}>
              <TableCell>
                <code>{name}</code>
              </TableCell>
              <TableCell>{text}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
