/**
 * The review page's pre-send checklist (docs/architecture.md §12 "Pre-send checks", §15): the checks of each chosen
 * template (TemplateChecklist), and the error findings that block the launch, said in words beside the reason the
 * Launch button is disabled. The server refuses a blast of such a template as well (saveEmailBlast).
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, Box, Stack, Typography } from '@mui/material';
import { TemplateChecklist, type TemplateCheck } from '../resources/templates/TemplateChecklist';

/**
 * launchBlockersOf lists the sentences of the error findings of checked templates, each prefixed with the
 * template's name when more than one template is chosen.
 */
export function launchBlockersOf(results: Record<string, TemplateCheck | undefined>, names: Record<string, string>): string[] {
  const ids = Object.keys(results);
  return ids.flatMap((id) =>
    (results[id]?.findings ?? []).filter((f) => f.severity === 'error').map((f) => (ids.length > 1 ? `${names[id] ?? id}: ${f.message}` : f.message)),
  );
}

/** PreSendChecklist checks `templateIds` once when shown and tells `onBlockers` the sentences that stop the launch (none: []). */
export function PreSendChecklist({
  templateIds,
  labels,
  onBlockers,
}: {
  templateIds: string[];
  labels: Record<string, string>;
  onBlockers: (blockers: string[]) => void;
}) {
  const [results, setResults] = useState<Record<string, TemplateCheck | undefined>>({});
  const key = templateIds.join(',');
  useEffect(() => setResults({}), [key]);
  const record = useCallback((id: string, r: TemplateCheck | undefined) => setResults((prev) => ({ ...prev, [id]: r })), []);
  const blockers = useMemo(() => launchBlockersOf(results, labels), [results, labels]);
  useEffect(() => onBlockers(blockers), [blockers, onBlockers]);

  if (!templateIds.length) return null;
  return (
    <Box component="section" aria-labelledby="presend-checks-heading" data-testid="presend-checklist">
      <Typography variant="h6" component="h2" id="presend-checks-heading" sx={{ mb: 1 }}>
        Pre-send checks
      </Typography>
      <Stack spacing={2}>
        {templateIds.map((id) => (
          <TemplateChecklist key={id} templateId={id} run={1} title={templateIds.length > 1 ? (labels[id] ?? id) : undefined} onResult={(r) => record(id, r)} />
        ))}
        {blockers.length > 0 && (
          <Alert severity="error" role="alert" aria-label="Check errors" data-testid="check-blockers">
            <Typography sx={{ fontWeight: 500 }}>Launch is disabled until these are fixed in the template:</Typography>
            <ul style={{ margin: 0, paddingLeft: 20 }}>
              {blockers.map((b) => (
                <li key={b}>{b}</li>
              ))}
            </ul>
          </Alert>
        )}
      </Stack>
    </Box>
  );
}
