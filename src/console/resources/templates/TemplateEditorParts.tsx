/**
 * The template editor's parts (spec part 2 §3 Template, Create/Edit template): the draft and its checks, the HTML import and image upload buttons, the HTML source with its live preview, and the phone view that
 * shows the rendered email instead of the editor. Each is controlled: the editor (TemplateEditor.tsx) holds the state.
 */
import type { ReactNode } from 'react';
import { Alert, Box, Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { VIEWER_SANDBOX } from '../../pages/EmailViewer';
import { checkRequired, checkTemplateContent } from '../../../domain/validation';
import { renderSample } from './sampleRender';
import { DEFAULT_DESIGN_HTML, emailDocument } from './designer/EmailDesigner';

/** The sender an editor preview shows (a template has no sender until a blast or workflow chooses a persona). */
export const SAMPLE_SENDER = 'Your sender persona';

/** What the editor's fields hold. */
export interface Draft {
  name: string;
  subject: string;
  type: string;
  html_body: string;
  /** The subscription topic of a marketing template ('' for none). */
  topic_id: string;
  /** The inbox preview text (preheader): written into html_body's hidden preheader element on save (withPreheader). */
  preheader: string;
}

/** draftErrors: each field's error in words (checkRequired, checkTemplateContent), undefined when it is fine. */
export function draftErrors(d: Draft): Partial<Record<keyof Draft, string>> {
  return {
    name: checkRequired(d.name),
    subject: checkRequired(d.subject),
    type: checkRequired(d.type),
    html_body: checkTemplateContent(d.html_body, d.type),
  };
}

/** headOf reads the generated fields' values (SpecFields over TemplateHead) into the draft's: absent text is ''. */
export function headOf(values: Record<string, unknown>): Pick<Draft, 'name' | 'subject' | 'type' | 'topic_id'> {
  return {
    name: String(values.name ?? ''),
    subject: String(values.subject ?? ''),
    type: String(values.type ?? ''),
    topic_id: String(values.topic_id ?? ''),
  };
}

/** FileButtons: "Import HTML" (an .html file becomes the template's code) and "Upload image" (its public URL is listed). */
export function FileButtons({ onImportHtml, onUploadImage }: { onImportHtml: (file: File | undefined) => void; onUploadImage: (file: File) => void }) {
  return (
    <>
      <Button component="label" variant="outlined" size="small">
        Import HTML
        <input
          hidden
          type="file"
          accept=".html,.htm,text/html"
          aria-label="Import HTML file"
          onChange={(e) => {
            onImportHtml(e.target.files?.[0]);
            e.target.value = '';
          }}
        />
      </Button>
      <Button component="label" variant="outlined" size="small">
        Upload image
        <input
          hidden
          type="file"
          accept="image/png,image/jpeg,image/gif,image/webp"
          aria-label="Upload image file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) onUploadImage(f);
            e.target.value = '';
          }}
        />
      </Button>
    </>
  );
}

/**
 * InboxLine: how the email appears in an inbox list — the sender, the subject and, after it, the preheader (or,
 * without one, the first words of the body, as inbox lists show them). Texts are shown as given (render them first).
 */
export function InboxLine({ from, subject, preheader }: { from: string; subject: string; preheader: string }) {
  return (
    <Box
      role="group"
      aria-label="Inbox preview"
      sx={{ px: 1.5, py: 1, border: 1, borderColor: 'divider', borderRadius: 1, bgcolor: 'background.default', minWidth: 0 }}
    >
      <Typography variant="body2" sx={{ fontWeight: 600, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
        {from}
      </Typography>
      <Typography variant="body2" sx={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
        <Box component="span" sx={{ fontWeight: 600 }}>
          {subject || '(no subject)'}
        </Box>
        <Box component="span" sx={{ color: 'text.secondary' }} data-testid="inbox-preheader">
          {' — '}
          {preheader || '(no preview text: inboxes show the first words of the email)'}
        </Box>
      </Typography>
    </Box>
  );
}

/** PreheaderField: the inbox preview text, with what it is for. */
export function PreheaderField({ value, onChange }: { value: string; onChange: (text: string) => void }) {
  return (
    <TextField
      id="template-preheader"
      label="Inbox preview text"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      helperText="Shown after the subject in most inboxes, hidden in the opened email. Empty: inboxes show the email's first words."
      slotProps={{ htmlInput: { maxLength: 200 } }}
      fullWidth
    />
  );
}

/** PreviewFrame: an email's HTML in a sandboxed frame (VIEWER_SANDBOX: no scripts), the full width and at least `minHeight` px tall. */
export function PreviewFrame({ title, html, minHeight }: { title: string; html: string; minHeight: number }) {
  return (
    <iframe
      title={title}
      sandbox={VIEWER_SANDBOX}
      srcDoc={html}
      style={{ width: '100%', height: '100%', minHeight, border: 0, background: '#fff', display: 'block' }}
    />
  );
}

/** HtmlSource: the template's HTML as code (read-only while a designer makes it) beside its live preview. */
export function HtmlSource({ html, readOnly, onChange }: { html: string; readOnly: boolean; onChange: (html: string) => void }) {
  return (
    <Stack direction={{ xs: 'column', lg: 'row' }} spacing={2}>
      <TextField
        id="template-html"
        label="HTML"
        multiline
        minRows={18}
        maxRows={30}
        value={html}
        onChange={(e) => onChange(e.target.value)}
        slotProps={{ htmlInput: { spellCheck: false, readOnly, style: { fontFamily: 'monospace', fontSize: 13 } } }}
        sx={{ flex: 1 }}
      />
      <Box sx={{ flex: 1, minHeight: 420, border: 1, borderColor: 'divider', borderRadius: 1, overflow: 'hidden' }}>
        <PreviewFrame title="HTML preview" html={html} minHeight={420} />
      </Box>
    </Stack>
  );
}

/**
 * PhonePreview: on a phone the editor opens only when asked; the page shows the rendered email (sample variables) with
 * "Edit anyway" and, for a saved template, "Send test email". `children` is the test email dialog.
 */
export function PhonePreview({
  name,
  subject,
  preheader,
  html,
  onEditAnyway,
  onTest,
  children,
}: {
  name: string;
  subject: string;
  preheader: string;
  html: string;
  onEditAnyway: () => void;
  onTest?: () => void;
  children: ReactNode;
}) {
  return (
    <Box>
      <Alert
        severity="warning"
        sx={{ mb: 2 }}
        action={
          <Button color="inherit" size="small" onClick={onEditAnyway}>
            Edit anyway
          </Button>
        }
      >
        Template editing is not supported on mobile devices; please use a larger screen. Here is how the email looks.
      </Alert>
      <Card variant="outlined">
        <CardContent>
          <Typography variant="subtitle1" component="p" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
            {name || 'New template'}
          </Typography>
          <Box sx={{ mb: 1 }}>
            <InboxLine from={SAMPLE_SENDER} subject={renderSample(subject)} preheader={renderSample(preheader)} />
          </Box>
          <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1, overflow: 'hidden' }}>
            <PreviewFrame title="Template preview" html={renderSample(html || emailDocument(DEFAULT_DESIGN_HTML))} minHeight={560} />
          </Box>
          {onTest && (
            <Button variant="outlined" sx={{ mt: 2 }} onClick={onTest}>
              Send test email
            </Button>
          )}
        </CardContent>
      </Card>
      {children}
    </Box>
  );
}
