/**
 * A contact's workflows on /people/users/edit/{id} (a contact's path through workflows is visible from the
 * contact): the contact's runs through every workflow, newest first (listContactRuns contact_id=…), each with its
 * path and a link to its workflow's editor.
 */
import { useParams } from 'react-router-dom';
import { Box } from '@mui/material';
import { RunList } from '../../workflows/RunList';

/** ContactWorkflows lists the runs of the contact being edited. */
export function ContactWorkflows() {
  const { id } = useParams();
  if (!id) return null;
  return (
    <Box sx={{ mt: 2 }}>
      <RunList contactId={id} heading="Workflows" />
    </Box>
  );
}
