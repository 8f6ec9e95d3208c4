/** The email blasts resource (spec part 2 §2 Email blasts): its screens, icon and record representation. */
import ScheduleSendIcon from '@mui/icons-material/ScheduleSend';
import { EmailBlastCreate } from './EmailBlastCreate';
import { EmailBlastEdit } from './EmailBlastEdit';
import { EmailBlastList } from './EmailBlastList';

export default {
  list: EmailBlastList,
  edit: EmailBlastEdit,
  create: EmailBlastCreate,
  icon: ScheduleSendIcon,
  recordRepresentation: 'name',
};
