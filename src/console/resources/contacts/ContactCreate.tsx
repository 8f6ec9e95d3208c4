/** The new-contact form at /people/users/new (spec part 2 §2 Contacts, §5 Contact). */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceForm } from '../shared/ResourceForm';

/** ContactCreate renders the contact form for a new contact. */
export function ContactCreate() {
  return <ResourceForm definition={resourcesByName.contacts} entity="contact" mode="create" emailFields={['email']} />;
}
