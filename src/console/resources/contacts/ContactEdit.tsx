/**
 * The contact form at /people/users/edit/{id} (spec part 2 §2 Contacts, §5 Contact), with the contact's email history
 * and its paths through workflows (issue 8).
 */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceForm } from '../shared/ResourceForm';
import { ContactEmailHistory } from './ContactEmailHistory';
import { ContactWorkflows } from './ContactWorkflows';

/** ContactEdit loads a contact and renders its form, then the emails sent to it and its workflow runs. */
export function ContactEdit() {
  return (
    <>
      <ResourceForm definition={resourcesByName.contacts} entity="contact" mode="edit" emailFields={['email']} />
      <ContactEmailHistory />
      <ContactWorkflows />
    </>
  );
}
