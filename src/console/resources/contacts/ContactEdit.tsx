/**
 * The contact form at /people/users/edit/{id} (spec part 2 §2 Contacts, §5 Contact), with the contact's email history,
 * its bounces and complaints with the receivers' words, and its paths through workflows.
 */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceForm } from '../shared/ResourceForm';
import { ContactEmailHistory } from './ContactEmailHistory';
import { ContactWorkflows } from './ContactWorkflows';
import { ContactFeedback } from './ContactFeedback';

/** ContactEdit loads a contact and renders its form, then the emails sent to it, its bounces and complaints, and its workflow runs. */
export function ContactEdit() {
  return (
    <>
      <ResourceForm definition={resourcesByName.contacts} entity="contact" mode="edit" emailFields={['email']} />
      <ContactEmailHistory />
      <ContactFeedback />
      <ContactWorkflows />
    </>
  );
}
