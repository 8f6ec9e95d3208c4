/**
 * The contact form at /people/users/edit/{id} (spec part 2 §2 Contacts, §5 Contact), with the contact's privacy
 * actions beside its heading (download its data, erase it), then its email history, its bounces and complaints with
 * the receivers' words, and its paths through workflows.
 */
import { useGetOne } from 'react-admin';
import { useParams } from 'react-router-dom';
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceForm } from '../shared/ResourceForm';
import { ContactEmailHistory } from './ContactEmailHistory';
import { ContactWorkflows } from './ContactWorkflows';
import { ContactFeedback } from './ContactFeedback';
import { ContactPrivacyActions } from './ContactPrivacy';

/** ContactActions is the privacy actions of the contact being edited, once it is loaded (the form's own getOne). */
function ContactActions() {
  const { id } = useParams();
  const { data: contact } = useGetOne('contacts', { id: id ?? '' }, { enabled: Boolean(id) });
  const email = contact?.email as string | undefined;
  if (!id || !email) return null;
  return <ContactPrivacyActions id={id} email={email} />;
}

/**
 * ContactEdit loads a contact and renders its form with its privacy actions, then the emails sent to it, its bounces
 * and complaints, and its workflow runs.
 */
export function ContactEdit() {
  return (
    <>
      <ResourceForm definition={resourcesByName.contacts} entity="contact" mode="edit" emailFields={['email']} actions={<ContactActions />} />
      <ContactEmailHistory />
      <ContactFeedback />
      <ContactWorkflows />
    </>
  );
}
