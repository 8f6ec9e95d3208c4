/** The contact form at /people/users/edit/{id} (spec part 2 §2 Contacts, §5 Contact). */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceForm } from '../shared/ResourceForm';

/** ContactEdit loads a contact and renders its form. */
export function ContactEdit() {
  return <ResourceForm definition={resourcesByName.contacts} entity="contact" mode="edit" emailFields={['email']} />;
}
