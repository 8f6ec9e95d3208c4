/**
 * The template editor (spec part 2 §2 Templates, §4 Template editor, §5 Template): name, subject, type and the HTML
 * source with a sandboxed live preview, the 'Render variables' toggle, the suspicious-variable warning (checked every
 * 2 s) and the template checks; after save it goes to /components/templates/edit/{id}.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useCreate, useGetOne, useNotify, useUpdate, type RaRecord } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, Stack, TextField, Typography, useMediaQuery } from '@mui/material';
import { buildRenderContext } from '../../../domain/templateVariables';
import { checkRequired, checkTemplateContent, suspiciousVariables } from '../../../domain/validation';
import { Loading } from '../../layout/ConsoleLayout';
import { TemplateInstructions } from './TemplateInstructions';
import { SendTestEmailDialog } from './SendTestEmailDialog';

/** The two template types (spec part 2 §3 Template). */
export const TEMPLATE_TYPES = [
  { value: 'TEMPLATE_MARKETING', label: 'Marketing' },
  { value: 'TEMPLATE_TRANSACTIONAL', label: 'Transactional' },
] as const;

/** The starting document of a new template: white background and an unsubscribe link block (spec part 2 §4). */
export const DEFAULT_TEMPLATE_HTML = `<!doctype html>
<html>
  <body style="margin:0;padding:24px;background:#ffffff;font-family:Arial,sans-serif;color:#222222;">
    <p>Hi {{user.first_name}},</p>
    <p>Write your email here.</p>
    <p>{{sender_persona.first_name}}</p>
    <p style="font-size:12px;color:#777777;"><a href="{{unsubscribe_link}}">Unsubscribe</a></p>
  </body>
</html>
`;

const SAMPLE_CONTEXT = buildRenderContext(
  { email: 'jane.doe@example.com', first_name: 'Jane', last_name: 'Doe', timezone: 'America/New_York', json: { plan: 'Pro' } },
  { email: 'news@example.com', first_name: 'Sam', last_name: 'Sender' },
  'https://example.com/unsubscribe',
);

/** renderSample fills `{{path}}` variables with sample values; a missing value renders blank (spec part 2 §3). */
export function renderSample(html: string): string {
  return html.replace(/\{\{\{?\s*([\w.]+)\s*\}?\}\}/g, (_, path: string) => {
    let value: unknown = SAMPLE_CONTEXT;
    for (const part of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
    return value === undefined || value === null || typeof value === 'object' ? '' : String(value);
  });
}

interface Draft {
  name: string;
  subject: string;
  type: string;
  html_body: string;
}

function draftErrors(d: Draft): Partial<Record<keyof Draft, string>> {
  return {
    name: checkRequired(d.name),
    subject: checkRequired(d.subject),
    type: checkRequired(d.type),
    html_body: checkTemplateContent(d.html_body, d.type),
  };
}

function Editor({ mode, source }: { mode: 'create' | 'edit'; source?: RaRecord }) {
  const navigate = useNavigate();
  const notify = useNotify();
  const narrow = useMediaQuery('(max-width:599px)', { noSsr: true });
  const [create, { isPending: creating }] = useCreate();
  const [update, { isPending: updating }] = useUpdate();
  const saving = creating || updating;
  const [draft, setDraft] = useState<Draft>(() => ({
    name: source ? (mode === 'create' ? `Copy of ${source.name}` : String(source.name ?? '')) : '',
    subject: String(source?.subject ?? ''),
    type: String(source?.type ?? 'TEMPLATE_MARKETING'),
    html_body: String(source?.html_body ?? DEFAULT_TEMPLATE_HTML),
  }));
  const [attempted, setAttempted] = useState(false);
  const [renderVariables, setRenderVariables] = useState(false);
  const [suspicious, setSuspicious] = useState<string[]>([]);
  const htmlRef = useRef(draft.html_body);
  htmlRef.current = draft.html_body;

  useEffect(() => {
    const check = () => setSuspicious(suspiciousVariables(htmlRef.current));
    check();
    const timer = setInterval(check, 2000);
    return () => clearInterval(timer);
  }, []);

  const errors = attempted ? draftErrors(draft) : {};
  const preview = useMemo(
    () => (renderVariables ? renderSample(draft.html_body) : draft.html_body),
    [renderVariables, draft.html_body],
  );
  const set = (key: keyof Draft) => (e: React.ChangeEvent<HTMLInputElement>) => setDraft({ ...draft, [key]: e.target.value });

  const [testOpen, setTestOpen] = useState(false);
  const save = async () => {
    setAttempted(true);
    if (Object.values(draftErrors(draft)).some(Boolean)) return;
    // html-to-text (~45 kB gzip) is loaded on the first save, not with the console.
    const { textFromHtml } = await import('../../../domain/emailHtml');
    const data = {
      ...draft,
      enabled: source?.enabled ?? true,
      // The text alternative, made from the HTML on every save so it never lags behind it (issue 4 §2).
      plain_text_body: textFromHtml(draft.html_body) || null,
      channel_id: source?.channel_id ?? null,
      json: source?.json ?? null,
    };
    const options = {
      onSuccess: (saved: RaRecord) => {
        notify('Successfully saved template', { type: 'success' });
        navigate(`/components/templates/edit/${saved.id}`, { replace: mode === 'edit' });
      },
      onError: (error: unknown) => notify(`Couldn't save template: ${(error as Error)?.message ?? error}`, { type: 'error' }),
    };
    if (mode === 'edit' && source) {
      update('templates', { id: source.id, data, previousData: source }, { ...options, mutationMode: 'pessimistic' });
    } else {
      create('templates', { data }, options);
    }
  };

  return (
    <Box>
      {narrow && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          Template editing is not supported on mobile devices; please use a larger screen.
        </Alert>
      )}
      <Card variant="outlined">
        <CardContent>
          <Stack spacing={2}>
            <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
              <TextField id="template-name" label="Name" value={draft.name} onChange={set('name')} required error={!!errors.name} helperText={errors.name} fullWidth />
              <TextField id="template-subject" label="Subject" value={draft.subject} onChange={set('subject')} required error={!!errors.subject} helperText={errors.subject} fullWidth />
              <TextField id="template-type" select label="Type" value={draft.type} onChange={set('type')} required error={!!errors.type} helperText={errors.type} sx={{ minWidth: 200 }} slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}>
                {TEMPLATE_TYPES.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </TextField>
            </Stack>
            {suspicious.length > 0 && (
              <Alert severity="warning" role="status">
                This template contains variable formats that will not be filled in: {suspicious.join(', ')}. Use{' '}
                <code>{'{{user.first_name}}'}</code> style variables (see the instructions below).
              </Alert>
            )}
            <Stack direction={{ xs: 'column', lg: 'row' }} spacing={2}>
              <TextField
                id="template-html"
                label="HTML"
                multiline
                minRows={18}
                maxRows={30}
                value={draft.html_body}
                onChange={set('html_body')}
                error={!!errors.html_body}
                helperText={errors.html_body ?? (renderVariables ? 'Showing sample values; return to edit mode to change the HTML.' : undefined)}
                slotProps={{ htmlInput: { spellCheck: false, readOnly: renderVariables, style: { fontFamily: 'monospace', fontSize: 13 } } }}
                sx={{ flex: 1 }}
              />
              <Box sx={{ flex: 1, minHeight: 420, border: 1, borderColor: 'divider', borderRadius: 1, overflow: 'hidden' }}>
                <iframe title="Template preview" sandbox="" srcDoc={preview} style={{ width: '100%', height: '100%', minHeight: 420, border: 0, background: '#fff' }} />
              </Box>
            </Stack>
            <Stack direction="row" spacing={1}>
              <Button variant="outlined" onClick={() => setRenderVariables(!renderVariables)}>
                {renderVariables ? 'Return to edit mode' : 'Render variables'}
              </Button>
              <Button variant="contained" onClick={() => void save()} disabled={saving}>
                {saving ? 'Saving…' : 'Save'}
              </Button>
              <Button variant="outlined" onClick={() => setTestOpen(true)} disabled={mode !== 'edit' || !source}
                title={mode !== 'edit' ? 'Save the template first' : undefined}>
                Send test email
              </Button>
            </Stack>
          </Stack>
        </CardContent>
      </Card>
      <TemplateInstructions />
      <SendTestEmailDialog open={testOpen} onClose={() => setTestOpen(false)} templateId={mode === 'edit' ? source?.id as string | undefined : undefined} templateType={draft.type} />
    </Box>
  );
}

/**
 * TemplateEditor loads the template named by `id` (to edit it, or as the starting copy of a new one) and renders the
 * editor; a load failure shows 'Unable to load template: ...'.
 */
export function TemplateEditor({ mode, id }: { mode: 'create' | 'edit'; id?: string }) {
  const { data, isPending, error } = useGetOne('templates', { id: id ?? '' }, { enabled: !!id });
  const title = mode === 'edit' ? 'Edit Template' : 'New Template';
  let body: React.ReactNode;
  if (id && isPending) body = <Loading />;
  else if (id && (error || !data)) body = <Alert severity="error">Unable to load template: {(error as Error | null)?.message ?? 'not found'}</Alert>;
  else body = <Editor key={String(data?.id ?? 'new')} mode={mode} source={id ? data : undefined} />;
  return (
    <Box>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {title}
      </Typography>
      {body}
    </Box>
  );
}
