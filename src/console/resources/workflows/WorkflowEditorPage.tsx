/**
 * The workflow editor's route element (spec part 2 §2 Workflows): the editor and @joint/core are a lazy chunk of
 * their own, loaded when an editor route is first opened, so no other page grows by them.
 */
import { lazy, Suspense } from 'react';
import { Box, CircularProgress } from '@mui/material';

const WorkflowEditor = lazy(() => import('../../workflows/WorkflowEditor'));

/** WorkflowEditorPage loads the editor chunk and renders the editor in `mode`. */
export function WorkflowEditorPage({ mode }: { mode: 'create' | 'edit' }) {
  return (
    <Suspense
      fallback={
        <Box sx={{ p: 2 }}>
          <CircularProgress aria-label="Loading the workflow editor" />
        </Box>
      }
    >
      <WorkflowEditor mode={mode} />
    </Suspense>
  );
}
