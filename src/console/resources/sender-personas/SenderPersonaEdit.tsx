/** The sender persona form at /people/sender-personas/edit/{id} (spec part 2 §2, §5 Sender persona). */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceForm } from '../shared/ResourceForm';
import { SenderPersonaAdvice } from './SenderPersonaAdvice';

/** SenderPersonaEdit loads a persona and renders its form. */
export function SenderPersonaEdit() {
  return (
    <ResourceForm
      definition={resourcesByName['sender-personas']}
      entity="sender persona"
      mode="edit"
      emailFields={['email']}
      requiredFields={['first_name']}
      disableSaveWhileEmailInvalid
    >
      <SenderPersonaAdvice />
    </ResourceForm>
  );
}
