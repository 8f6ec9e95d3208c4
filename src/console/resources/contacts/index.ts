/** The contacts resource (spec part 2 §2 Contacts): its screens, icon and record representation. */
import ContactsIcon from '@mui/icons-material/Contacts';
import { ContactCreate } from './ContactCreate';
import { ContactEdit } from './ContactEdit';
import { ContactList } from './ContactList';

export default {
  list: ContactList,
  edit: ContactEdit,
  create: ContactCreate,
  icon: ContactsIcon,
  recordRepresentation: 'email',
};
