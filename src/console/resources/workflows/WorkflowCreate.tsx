/** The new-workflow editor at /components/workflows/new (spec part 2 §2 Workflows). */
import { WorkflowEditorPage } from './WorkflowEditorPage';

/** WorkflowCreate opens the editor on an empty workflow with a new id. */
export function WorkflowCreate() {
  return <WorkflowEditorPage mode="create" />;
}
