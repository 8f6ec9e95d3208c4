/**
 * The send wizard review's email preview: each chosen template rendered with sample values (a contact
 * named Jane Doe and the chosen sender persona, renderSample) at desktop (600 px) or phone (375 px) width, its subject above, and a 'Send a test
 * email' button (the template editor's modal: to the simulator, a sender persona or, once activated, any address; not
 * tracked). The rendered email sits in a sandboxed frame where nothing runs.
 */
import { useEffect, useState } from 'react';
import { Alert, Box, Button, Stack, Tab, Tabs, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import type { ListRow } from '../data/apiTypes';
import { callOperation } from '../data/gateway';
import { renderSample } from '../resources/templates/sampleRender';
import { SendTestEmailDialog } from '../resources/templates/SendTestEmailDialog';
import { VIEWER_SANDBOX } from '../pages/EmailViewer';

type Template = ListRow<'listTemplates'>;

/** The preview widths: a desktop mail client's reading pane and a phone. */
export const PREVIEW_WIDTHS = { desktop: 600, phone: 375 } as const;

type Persona = ListRow<'listSenderPersonas'>;

/**
 * usePersonas loads the sender personas `ids` (comma-separated) for the preview's sign-off; a failure leaves the
 * sample persona in place (the launch's own checks name a missing persona).
 */
function usePersonas(ids: string): Map<string, Persona> {
  const [personas, setPersonas] = useState<Map<string, Persona>>(new Map());
  useEffect(() => {
    if (!ids) return;
    let live = true;
    callOperation('listSenderPersonas', { query: { ids, limit: ids.split(',').length } }).then(
      (r) => live && setPersonas(new Map(r.data.map((p) => [String(p.id), p]))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [ids]);
  return personas;
}

/**
 * EmailPreview shows the templates `templateIds` as they will read, with a test send: signed by the sender persona
 * `personaOf(templateId)` chose (once it has loaded), the contact's values a sample's.
 */
export function EmailPreview({ templateIds, personaOf }: { templateIds: string[]; personaOf: (templateId: string) => string | undefined }) {
  const [templates, setTemplates] = useState<Template[] | undefined>();
  const personas = usePersonas([...new Set(templateIds.map(personaOf).filter((id): id is string => !!id))].join(','));
  const [error, setError] = useState<string | undefined>();
  const [shown, setShown] = useState(0);
  const [width, setWidth] = useState<keyof typeof PREVIEW_WIDTHS>('desktop');
  const [testing, setTesting] = useState(false);
  const key = templateIds.join(',');

  useEffect(() => {
    if (!key) return;
    let live = true;
    setTemplates(undefined);
    setError(undefined);
    callOperation('listTemplates', { query: { ids: key, limit: key.split(',').length } }).then(
      (r) => {
        if (!live) return;
        // In the order chosen (A/B: template 1, 2, …).
        const byId = new Map(r.data.map((t) => [String(t.id), t]));
        setTemplates(
          key
            .split(',')
            .map((id) => byId.get(id))
            .filter((t): t is Template => !!t),
        );
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [key]);

  if (!key) return null;
  if (error) return <Alert severity="error">{`Couldn't load the email to preview: ${error}`}</Alert>;
  if (!templates) return <Typography role="status">Loading the email preview…</Typography>;
  const template = templates[Math.min(shown, templates.length - 1)];
  if (!template) return null;
  const persona = personas.get(personaOf(String(template.id)) ?? '');
  return (
    <Stack spacing={1} data-testid="email-preview">
      {templates.length > 1 && (
        <Tabs value={Math.min(shown, templates.length - 1)} onChange={(_e, i: number) => setShown(i)} aria-label="Templates to preview" variant="scrollable">
          {templates.map((t, i) => (
            <Tab key={String(t.id)} value={i} label={t.name} />
          ))}
        </Tabs>
      )}
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
        <ToggleButtonGroup
          exclusive
          size="small"
          value={width}
          onChange={(_e, v: keyof typeof PREVIEW_WIDTHS | null) => v && setWidth(v)}
          aria-label="Preview width"
        >
          <ToggleButton value="desktop">Desktop</ToggleButton>
          <ToggleButton value="phone">Phone</ToggleButton>
        </ToggleButtonGroup>
        <Button variant="outlined" size="small" onClick={() => setTesting(true)}>
          Send a test email
        </Button>
      </Stack>
      {persona && (
        <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
          <strong>From:</strong> {`${[persona.first_name, persona.last_name].filter(Boolean).join(' ')} <${persona.email}>`}
        </Typography>
      )}
      <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
        <strong>Subject:</strong> {renderSample(String(template.subject ?? ''), persona)}
      </Typography>
      <Typography variant="caption" color="text.secondary">
        Variables are filled with a sample contact (Jane Doe) and the chosen sender persona; each recipient gets their own.
      </Typography>
      <Box sx={{ overflowX: 'auto', bgcolor: '#eceff1', p: 1, borderRadius: 1 }}>
        <Box
          component="iframe"
          title={`Preview of ${template.name} at ${width} width`}
          sandbox={VIEWER_SANDBOX}
          srcDoc={renderSample(String(template.html_body ?? ''), persona)}
          data-width={PREVIEW_WIDTHS[width]}
          sx={{ display: 'block', mx: 'auto', width: PREVIEW_WIDTHS[width], maxWidth: '100%', height: 520, border: 0, bgcolor: '#fff' }}
        />
      </Box>
      <SendTestEmailDialog open={testing} onClose={() => setTesting(false)} templateId={String(template.id)} templateType={String(template.type)} />
    </Stack>
  );
}
