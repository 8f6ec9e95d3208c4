/** The sender personas list at /people/sender-personas (spec part 2 §2 Sender personas). */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList } from '../shared/ResourceList';

/** SenderPersonaList lists personas (email, first name, last name, added) with an empty state prompting to add one. */
export function SenderPersonaList() {
  return <ResourceList definition={resourcesByName['sender-personas']} entity="sender persona" />;
}
