/**
 * The workflows list at /components/workflows (spec part 2 §2 Workflows, §9): columns Name (cut at 90), Enabled and
 * Added from the generated definition, a name search, 10 a page; per row edit, disable (while enabled) and archive.
 * The empty state points to the send wizard, which builds drip and event-triggered workflows.
 */
import { Link as RouterLink } from 'react-router-dom';
import { Button } from '@mui/material';
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList } from '../shared/ResourceList';
import { WorkflowArchiveButton, WorkflowDisableButton } from './WorkflowRowActions';

/** WorkflowList lists live workflows, newest first. */
export function WorkflowList() {
  return (
    <ResourceList
      definition={resourcesByName.workflows}
      entity="workflow"
      searchLabels={{ name: 'Name' }}
      rowActions={
        <>
          <WorkflowDisableButton />
          <WorkflowArchiveButton />
        </>
      }
      emptyActions={
        <Button variant="contained" size="small" component={RouterLink} to="/email-send-wizard">
          Open the send wizard
        </Button>
      }
    />
  );
}
