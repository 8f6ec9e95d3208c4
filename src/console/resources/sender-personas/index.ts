/** The sender personas resource (spec part 2 §2 Sender personas): its screens, icon and record representation. */
import BadgeIcon from '@mui/icons-material/Badge';
import { SenderPersonaCreate } from './SenderPersonaCreate';
import { SenderPersonaEdit } from './SenderPersonaEdit';
import { SenderPersonaList } from './SenderPersonaList';

export default {
  list: SenderPersonaList,
  edit: SenderPersonaEdit,
  create: SenderPersonaCreate,
  icon: BadgeIcon,
  recordRepresentation: 'email',
};
