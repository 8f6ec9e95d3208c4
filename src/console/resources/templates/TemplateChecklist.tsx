/**
 * The pre-send checklist of one saved template (POST {template}/templates/{id}/check; docs/architecture.md §12
 * "Pre-send checks"): each finding with its severity as an icon and a word, the HTML's size as sent and the spam
 * score when the server has one. Shown by the template editor ("Check") and the send wizard's review
 * (wizard/PreSendChecklist.tsx). An error finding blocks the wizard's launch; the server itself refuses a blast only
 * for a marketing template with no usable unsubscribe link (core/templates/checks.ts launchBlockers).
 */
import { useEffect, useState } from 'react';
import { Alert, Box, CircularProgress, List, ListItem, ListItemIcon, ListItemText, Stack, Typography } from '@mui/material';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import type { OperationResponse } from '../../data/apiTypes';
import { callOperation } from '../../data/gateway';
import { normaliseErrorText } from '../../../domain/errors';

/** What the checks found for one template. */
export type TemplateCheck = OperationResponse<'checkTemplate'>['data'];
type Finding = TemplateCheck['findings'][number];

/**
 * Each severity's word, icon and the icon's colour. The word itself is in the text colour: the palette's warning and
 * info shades (main and dark) do not reach WCAG AA contrast (4.5:1) on white for text of this size.
 */
const SEVERITY = {
  error: { word: 'Error', Icon: ErrorOutlineIcon, color: 'error.main' },
  warning: { word: 'Warning', Icon: WarningAmberIcon, color: 'warning.main' },
  info: { word: 'Info', Icon: InfoOutlinedIcon, color: 'info.main' },
} as const;

/** summaryOf counts findings by severity in words, e.g. "1 error, 2 warnings" (or "No problems found"). */
export function summaryOf(findings: Finding[]): string {
  const n = (severity: Finding['severity']) => findings.filter((f) => f.severity === severity).length;
  const parts = [
    [n('error'), 'error'],
    [n('warning'), 'warning'],
  ]
    .filter(([count]) => count)
    .map(([count, word]) => `${count} ${word}${count === 1 ? '' : 's'}`);
  return parts.length ? parts.join(', ') : 'No problems found';
}

/** FindingList lists findings, worst first as the server orders them, each with its severity icon and word. */
export function FindingList({ findings }: { findings: Finding[] }) {
  return (
    <List dense disablePadding aria-label="Check findings">
      {findings.map((f, i) => {
        const s = SEVERITY[f.severity];
        return (
          <ListItem key={`${f.code}-${f.url ?? ''}-${i}`} disableGutters alignItems="flex-start" data-severity={f.severity} data-code={f.code}>
            <ListItemIcon sx={{ minWidth: 32, mt: 0.5, color: s.color }}>
              <s.Icon fontSize="small" aria-hidden />
            </ListItemIcon>
            <ListItemText
              primary={
                <>
                  <Box component="span" sx={{ fontWeight: 600 }}>
                    {s.word}:
                  </Box>{' '}
                  {f.message}
                </>
              }
              slotProps={{ primary: { sx: { overflowWrap: 'anywhere' } } }}
            />
          </ListItem>
        );
      })}
    </List>
  );
}

/**
 * TemplateChecklist runs the checks of template `templateId` each time `run` changes to a number above 0 (0: not
 * yet), shows them, and tells `onResult` what came back (undefined while checking or after a failure).
 */
export function TemplateChecklist({
  templateId,
  run,
  title,
  onResult,
}: {
  templateId: string;
  run: number;
  title?: string;
  onResult?: (result: TemplateCheck | undefined) => void;
}) {
  const [result, setResult] = useState<TemplateCheck | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [checking, setChecking] = useState(false);

  useEffect(() => {
    if (!run || !templateId) return;
    let live = true;
    setChecking(true);
    setError(undefined);
    setResult(undefined);
    onResult?.(undefined);
    callOperation('checkTemplate', { path: { id: templateId } })
      .then((answer) => {
        if (!live) return;
        setResult(answer.data);
        onResult?.(answer.data);
      })
      .catch((err: unknown) => live && setError(normaliseErrorText(err)))
      .finally(() => live && setChecking(false));
    return () => {
      live = false;
    };
    // onResult is the caller's setter; a new function each render must not re-run the checks.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- re-run only when asked (run) or for another template
  }, [run, templateId]);

  if (!run) return null;
  return (
    <Box component="section" aria-label={title ?? 'Template checks'} aria-busy={checking} data-testid="template-checklist">
      {title && (
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
          {title}
        </Typography>
      )}
      {checking && (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', my: 1 }} role="status">
          <CircularProgress size={20} aria-hidden />
          <Typography>Checking the email: links are tried one by one, which can take up to 30 seconds…</Typography>
        </Stack>
      )}
      {error && (
        <Alert severity="error" sx={{ my: 1 }}>
          Couldn’t check the template: {error}
        </Alert>
      )}
      {result && (
        <Box>
          <Typography sx={{ my: 1 }} role="status">
            {summaryOf(result.findings)}. HTML as sent: {(result.size_bytes / 1000).toFixed(1)} KB
            {result.spam ? `; spam score ${result.spam.score} (spam from ${result.spam.threshold})` : ''}.
          </Typography>
          <FindingList findings={result.findings} />
        </Box>
      )}
    </Box>
  );
}
