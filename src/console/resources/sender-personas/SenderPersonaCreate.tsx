/** The new sender persona form at /people/sender-personas/new (spec part 2 §2, §5 Sender persona). */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceForm } from '../shared/ResourceForm';
import { SenderPersonaAdvice } from './SenderPersonaAdvice';

/** SenderPersonaCreate renders the persona form; Save stays disabled while the email is invalid. */
export function SenderPersonaCreate() {
  return (
    <ResourceForm
      definition={resourcesByName['sender-personas']}
      entity="sender persona"
      mode="create"
      emailFields={['email']}
      requiredFields={['first_name']}
      disableSaveWhileEmailInvalid
    >
      <SenderPersonaAdvice />
    </ResourceForm>
  );
}
