/**
 * The template editor (spec part 2 §2 Templates, §4 Template editor, §5 Template): name, subject, type and a marketing
 * template's topic, generated from the templates resource's form (TemplateHead, SpecFields); the drag-and-drop designer (Unlayer, or the offline GrapesJS designer when Unlayer cannot load, behind the
 * EmailDesigner interface, both lazy-loaded) or the HTML as code; HTML import; image upload; the 'Render variables' /
 * 'Return to edit mode' preview with a sample contact and sender persona; the suspicious-variable warning (checked
 * every 2 s); the template checks; the pre-send checklist of the saved template ('Check': TemplateChecklist); after
 * save it goes to /components/templates/edit/{id}.
 */
import { Suspense, lazy, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useCreate, useGetOne, useNotify, useUpdate, type RaRecord } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, LinearProgress, Stack, Tab, Tabs, Typography, useMediaQuery } from '@mui/material';
import { renderSample } from './sampleRender';
import { StarterGallery, type StarterChoice } from './StarterGallery';
import { suspiciousVariables } from '../../../domain/validation';
import { Loading } from '../../layout/ConsoleLayout';
import { TemplateInstructions } from './TemplateInstructions';
import { SendTestEmailDialog } from './SendTestEmailDialog';
import { TemplateChecklist } from './TemplateChecklist';
import { uploadTemplateImage } from './uploadImage';
import { DEFAULT_DESIGN_HTML, emailDocument, savedDesignOf, type DesignerKind, type EmailDesigner, type SavedDesign } from './designer/EmailDesigner';
import { unlayerUnavailable } from './designer/unlayerState';
import { DesignerBoundary } from './designer/DesignerBoundary';
import {
  FileButtons,
  HtmlSource,
  InboxLine,
  PhonePreview,
  PreheaderField,
  PreviewFrame,
  SAMPLE_SENDER,
  draftErrors,
  headOf,
  type Draft,
} from './TemplateEditorParts';
import { preheaderOf, withPreheader } from '../../../domain/preheader';
import { resourcesByName } from '../../../../generated/resources.gen';
import { SpecFields } from '../shared/SpecFields';

// Both designers are loaded only when the editor shows them (GrapesJS is about 400 kB gzip).
const UnlayerDesigner = lazy(() => import('./designer/UnlayerDesigner'));
const GrapesDesigner = lazy(() => import('./designer/GrapesDesigner'));

/** Where the template's HTML comes from: a designer's export, or HTML written or imported as code. */
type Content = { from: 'designer'; kind: DesignerKind; design?: unknown } | { from: 'html' };

/** initialContent decides how a template opens: in the designer that made it, as code, or (new) in Unlayer. */
function initialContent(source: RaRecord | undefined): Content {
  const saved = savedDesignOf(source?.json);
  if (saved && saved.designer !== 'html') {
    if (saved.designer === 'unlayer' && unlayerUnavailable()) return { from: 'designer', kind: 'grapesjs' };
    return { from: 'designer', kind: saved.designer, design: saved.design };
  }
  if (source?.html_body) return { from: 'html' };
  return { from: 'designer', kind: unlayerUnavailable() ? 'grapesjs' : 'unlayer' };
}

function Editor({ mode, source, starter = false }: { mode: 'create' | 'edit'; source?: RaRecord; starter?: boolean }) {
  const navigate = useNavigate();
  const notify = useNotify();
  const narrow = useMediaQuery('(max-width:599px)', { noSsr: true });
  const [create, { isPending: creating }] = useCreate();
  const [update, { isPending: updating }] = useUpdate();
  const [exporting, setExporting] = useState(false);
  const saving = creating || updating || exporting;
  const [draft, setDraft] = useState<Draft>(() => ({
    name: source ? (mode === 'create' && !starter ? `Copy of ${source.name}` : String(source.name ?? '')) : '',
    subject: String(source?.subject ?? ''),
    type: String(source?.type ?? 'TEMPLATE_MARKETING'),
    html_body: String(source?.html_body ?? ''),
    topic_id: String(source?.topic_id ?? ''),
    preheader: preheaderOf(String(source?.html_body ?? '')),
  }));
  const [content, setContent] = useState<Content>(() => initialContent(source));
  const [view, setView] = useState<'design' | 'html'>(() => (initialContent(source).from === 'html' ? 'html' : 'design'));
  /** Bumped to mount a fresh designer (after an HTML import into the designer). */
  const [designerKey, setDesignerKey] = useState(0);
  const [designer, setDesigner] = useState<EmailDesigner | undefined>();
  const [designerFailed, setDesignerFailed] = useState(false);
  const [notice, setNotice] = useState<string | undefined>(() => {
    const saved = savedDesignOf(source?.json);
    return saved?.designer === 'unlayer' && unlayerUnavailable()
      ? `This design was made in the Unlayer designer, which cannot load here (${unlayerUnavailable()}). Its HTML is open in the built-in designer; saving stores it as a built-in design.`
      : undefined;
  });
  const [attempted, setAttempted] = useState(false);
  /** On a phone the editor opens only when asked: the page shows the rendered template instead. */
  const [editOnPhone, setEditOnPhone] = useState(false);
  const [renderVariables, setRenderVariables] = useState(false);
  const [suspicious, setSuspicious] = useState<string[]>([]);
  const [uploaded, setUploaded] = useState<string[]>([]);
  const htmlRef = useRef(draft.html_body);
  htmlRef.current = draft.html_body;
  const designerRef = useRef<EmailDesigner | undefined>(undefined);
  designerRef.current = designer;

  useEffect(() => {
    const check = () => setSuspicious(suspiciousVariables(htmlRef.current));
    check();
    const timer = setInterval(check, 2000);
    return () => clearInterval(timer);
  }, []);

  /** refresh exports the designer's HTML into the draft (for the checks, the preview and the HTML view). */
  const refresh = useCallback(async (): Promise<{ html: string; design: SavedDesign } | undefined> => {
    const d = designerRef.current;
    if (!d) return undefined;
    const out = await d.exportHtml();
    htmlRef.current = out.html;
    setDraft((prev) => ({ ...prev, html_body: out.html }));
    return out;
  }, []);
  const changeTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const onDesignChange = useCallback(() => {
    clearTimeout(changeTimer.current);
    changeTimer.current = setTimeout(() => void refresh(), 500);
  }, [refresh]);
  useEffect(() => () => clearTimeout(changeTimer.current), []);

  const onReady = useCallback(
    (d: EmailDesigner) => {
      designerRef.current = d;
      setDesigner(d);
      void refresh();
    },
    [refresh],
  );
  const onUnavailable = useCallback((reason: string) => {
    setNotice(`${reason}. Using the built-in designer, which works offline.`);
    setContent((c) => (c.from === 'designer' && c.kind === 'unlayer' ? { from: 'designer', kind: 'grapesjs' } : c));
  }, []);
  const uploadImage = useCallback(
    async (file: File) => {
      try {
        const url = await uploadTemplateImage(file);
        notify(`Successfully uploaded image ${file.name}`, { type: 'success' });
        setUploaded((list) => [url, ...list]);
        return url;
      } catch (err) {
        notify(`Couldn't upload image ${file.name}: ${(err as Error).message}`, { type: 'error' });
        throw err;
      }
    },
    [notify],
  );

  const errors = attempted ? draftErrors(draft) : {};
  const preview = useMemo(() => (renderVariables ? renderSample(draft.html_body) : draft.html_body), [renderVariables, draft.html_body]);

  const toggleRender = async () => {
    if (!renderVariables && content.from === 'designer') await refresh();
    setRenderVariables(!renderVariables);
  };

  /** editAsHtml detaches the HTML from the visual design: from now on it is edited as code. */
  const editAsHtml = async () => {
    await refresh();
    if (!htmlRef.current) {
      htmlRef.current = emailDocument(DEFAULT_DESIGN_HTML);
      setDraft((prev) => ({ ...prev, html_body: htmlRef.current }));
    }
    setDesignerFailed(false);
    setDesigner(undefined);
    designerRef.current = undefined;
    setContent({ from: 'html' });
    setView('html');
  };
  /** openInDesigner imports the HTML into the offline designer (Unlayer cannot import HTML). */
  const openInDesigner = () => {
    setDesignerFailed(false);
    setContent({ from: 'designer', kind: 'grapesjs' });
    setDesignerKey((k) => k + 1);
    setView('design');
  };
  const importHtml = async (file: File | undefined) => {
    if (!file) return;
    const text = await file.text();
    setDesigner(undefined);
    designerRef.current = undefined;
    htmlRef.current = text;
    setDraft((prev) => ({ ...prev, html_body: text, preheader: preheaderOf(text), name: prev.name || file.name.replace(/\.html?$/i, '') }));
    setContent({ from: 'html' });
    setView('html');
    notify(`Imported ${file.name}`, { type: 'info' });
  };

  const [testOpen, setTestOpen] = useState(false);
  /** Bumped by 'Check' to run the pre-send checks of the saved template again. */
  const [checkRun, setCheckRun] = useState(0);
  const save = async () => {
    setAttempted(true);
    let html = draft.html_body;
    let json: SavedDesign = { designer: 'html' };
    if (content.from === 'designer') {
      if (!designerRef.current) {
        notify('The designer is still loading; save again in a moment', { type: 'warning' });
        return;
      }
      setExporting(true);
      try {
        const out = await refresh();
        html = out!.html;
        json = out!.design;
      } finally {
        setExporting(false);
      }
    }
    html = withPreheader(html, draft.preheader);
    if (Object.values(draftErrors({ ...draft, html_body: html })).some(Boolean)) return;
    // html-to-text (~45 kB gzip) is loaded on the first save, not with the console.
    const { textFromHtml } = await import('../../../domain/emailHtml');
    const { preheader: _preheader, ...fields } = draft;
    const data = {
      ...fields,
      html_body: html,
      enabled: source?.enabled ?? true,
      // The text alternative, made from the HTML on every save so it never lags behind it.
      plain_text_body: textFromHtml(html) || null,
      channel_id: source?.channel_id ?? null,
      topic_id: draft.type === 'TEMPLATE_MARKETING' && draft.topic_id ? draft.topic_id : null,
      json,
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

  const startHtml = content.from === 'designer' && !content.design ? draft.html_body || DEFAULT_DESIGN_HTML : DEFAULT_DESIGN_HTML;
  const designerProps = {
    design: content.from === 'designer' ? content.design : undefined,
    html: startHtml,
    onReady,
    onChange: onDesignChange,
    onUnavailable,
    uploadImage,
  };
  const loadingDesigner = (
    <Box sx={{ p: 3 }} role="status">
      <Typography sx={{ mb: 1 }}>Loading the designer…</Typography>
      <LinearProgress />
    </Box>
  );

  const testDialog = (
    <SendTestEmailDialog
      open={testOpen}
      onClose={() => setTestOpen(false)}
      templateId={mode === 'edit' ? (source?.id as string | undefined) : undefined}
      templateType={draft.type}
    />
  );

  const savedId = mode === 'edit' && source ? String(source.id) : undefined;
  const checkButton = (
    <Button variant="outlined" onClick={() => setCheckRun((n) => n + 1)} disabled={!savedId} title={savedId ? undefined : 'Save the template first'}>
      Check
    </Button>
  );
  const checklist = savedId && checkRun > 0 && (
    <Box sx={{ mt: 2 }}>
      <Typography variant="body2" color="text.secondary">
        Checks the saved template: save first to check your latest changes.
      </Typography>
      <TemplateChecklist templateId={savedId} run={checkRun} />
    </Box>
  );

  if (narrow && !editOnPhone) {
    return (
      <PhonePreview
        name={draft.name}
        subject={draft.subject}
        preheader={draft.preheader}
        html={draft.html_body}
        onEditAnyway={() => setEditOnPhone(true)}
        onTest={mode === 'edit' && source ? () => setTestOpen(true) : undefined}
      >
        {testDialog}
        {savedId && <Box sx={{ mt: 2 }}>{checkButton}</Box>}
        {checklist}
      </PhonePreview>
    );
  }

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
            <SpecFields
              definition={resourcesByName.templates}
              idPrefix="template"
              values={{ name: draft.name, subject: draft.subject, type: draft.type, topic_id: draft.topic_id || undefined }}
              errors={{ name: errors.name, subject: errors.subject, type: errors.type }}
              onChange={(v) => setDraft((d) => ({ ...d, ...headOf(v) }))}
            />
            <PreheaderField
              value={draft.preheader}
              onChange={(text) =>
                // HTML written as code carries the preheader itself, so the code and the field stay one text.
                setDraft((d) => ({ ...d, preheader: text, html_body: content.from === 'html' ? withPreheader(d.html_body, text) : d.html_body }))
              }
            />
            {suspicious.length > 0 && (
              <Alert severity="warning" role="status">
                This template contains variable formats that will not be filled in: {suspicious.join(', ')}. Use <code>{'{{user.first_name}}'}</code> style
                variables (see the instructions below).
              </Alert>
            )}
            {notice && (
              <Alert severity="info" onClose={() => setNotice(undefined)}>
                {notice}
              </Alert>
            )}
            {errors.html_body && <Alert severity="error">{errors.html_body}</Alert>}
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
              <Tabs
                value={view}
                onChange={(_e, v: 'design' | 'html') => {
                  if (v === 'html' && content.from === 'designer') void refresh();
                  setView(v);
                }}
                aria-label="Editor view"
                sx={{ flex: 1, minWidth: 200 }}
              >
                <Tab value="design" label="Design" disabled={renderVariables} />
                <Tab value="html" label="HTML" disabled={renderVariables} />
              </Tabs>
              <FileButtons onImportHtml={(f) => void importHtml(f)} onUploadImage={(f) => void uploadImage(f).catch(() => undefined)} />
            </Stack>
            {uploaded.length > 0 && (
              <Alert severity="success" onClose={() => setUploaded([])}>
                Uploaded images (public URLs to use in the template):
                {uploaded.map((url) => (
                  <Box key={url} component="code" sx={{ display: 'block', wordBreak: 'break-all' }}>
                    {url}
                  </Box>
                ))}
              </Alert>
            )}
            {renderVariables && (
              <Box sx={{ minHeight: 640, border: 1, borderColor: 'divider', borderRadius: 1, overflow: 'hidden' }}>
                <InboxLine from={SAMPLE_SENDER} subject={renderSample(draft.subject)} preheader={renderSample(draft.preheader)} />
                <PreviewFrame title="Template preview" html={preview} minHeight={640} />
              </Box>
            )}
            {/* The designer stays mounted (hidden) during the preview and on the HTML view, so its design is loaded once. */}
            <Box sx={{ display: !renderVariables && view === 'design' ? 'block' : 'none' }}>
              {content.from === 'designer' ? (
                <Box sx={{ position: 'relative', minHeight: 640 }}>
                  {!designer && !designerFailed && loadingDesigner}
                  <DesignerBoundary key={`${content.kind}-${designerKey}`} onEditAsHtml={() => void editAsHtml()} onError={() => setDesignerFailed(true)}>
                    <Suspense fallback={null}>
                      {content.kind === 'unlayer' ? <UnlayerDesigner {...designerProps} /> : <GrapesDesigner {...designerProps} />}
                    </Suspense>
                  </DesignerBoundary>
                </Box>
              ) : (
                <Alert severity="info" action={<Button onClick={openInDesigner}>Open in the designer</Button>}>
                  This template’s HTML is edited as code (it was written or imported as HTML). Open it in the drag-and-drop designer to edit it visually.
                </Alert>
              )}
            </Box>
            {!renderVariables && view === 'html' && (
              <Stack spacing={1}>
                {content.from === 'designer' && (
                  <Alert severity="info" action={<Button onClick={() => void editAsHtml()}>Edit HTML directly</Button>}>
                    This is the HTML the designer makes. Editing it directly detaches it from the visual design.
                  </Alert>
                )}
                <HtmlSource
                  html={draft.html_body}
                  readOnly={content.from === 'designer'}
                  onChange={(html) => setDraft((d) => ({ ...d, html_body: html, preheader: preheaderOf(html) }))}
                />
              </Stack>
            )}
            <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
              <Button variant="outlined" onClick={() => void toggleRender()}>
                {renderVariables ? 'Return to edit mode' : 'Render variables'}
              </Button>
              <Button variant="contained" onClick={() => void save()} disabled={saving}>
                {saving ? 'Saving…' : 'Save'}
              </Button>
              <Button
                variant="outlined"
                onClick={() => setTestOpen(true)}
                disabled={mode !== 'edit' || !source}
                title={mode !== 'edit' ? 'Save the template first' : undefined}
              >
                Send test email
              </Button>
              {checkButton}
            </Stack>
            {checklist}
          </Stack>
        </CardContent>
      </Card>
      <TemplateInstructions />
      {testDialog}
    </Box>
  );
}

/**
 * TemplateEditor loads the template named by `id` (to edit it, or as the starting copy of a new one) and renders the
 * editor; a new template without one starts at the gallery of starters (StarterGallery). A load failure shows
 * 'Unable to load template: ...'.
 */
export function TemplateEditor({ mode, id }: { mode: 'create' | 'edit'; id?: string }) {
  const { data, isPending, error } = useGetOne('templates', { id: id ?? '' }, { enabled: !!id });
  /** A new template starts at the gallery: blank, or one of the starters. */
  const [choice, setChoice] = useState<StarterChoice | undefined>();
  const title = mode === 'edit' ? 'Edit Template' : 'New Template';
  let body: React.ReactNode;
  if (id && isPending) body = <Loading />;
  else if (id && (error || !data)) body = <Alert severity="error">Unable to load template: {(error as Error | null)?.message ?? 'not found'}</Alert>;
  else if (!id && mode === 'create' && !choice) body = <StarterGallery onChoose={setChoice} />;
  else if (!id && choice && !choice.blank)
    body = (
      <Editor
        key={`starter-${choice.starter.id}`}
        mode="create"
        starter
        source={{
          id: '',
          name: choice.starter.name,
          subject: choice.starter.subject,
          type: choice.starter.type,
          html_body: choice.html,
          json: { designer: 'html' },
        }}
      />
    );
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
