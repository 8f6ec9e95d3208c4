/** The workflow editor at /components/workflows/edit/{id} (spec part 2 §2 Workflows). */
import { WorkflowEditorPage } from './WorkflowEditorPage';

/** WorkflowEdit opens the editor on the workflow whose id is in the route. */
export function WorkflowEdit() {
  return <WorkflowEditorPage mode="edit" />;
}
