/** The workflows resource (spec part 2 §2 Workflows): its screens, icon and record representation. */
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import { WorkflowCreate } from './WorkflowCreate';
import { WorkflowEdit } from './WorkflowEdit';
import { WorkflowList } from './WorkflowList';

export default {
  list: WorkflowList,
  edit: WorkflowEdit,
  create: WorkflowCreate,
  icon: AccountTreeIcon,
  recordRepresentation: 'name',
};
