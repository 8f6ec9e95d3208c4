/** The sender personas list at /people/sender-personas (spec part 2 §2 Sender personas). */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList } from '../shared/ResourceList';
import { PersonaStatusCell } from './PersonaVerification';

/**
 * SenderPersonaList lists personas (email, first name, last name, verified, added) with an empty state prompting to add
 * one; an unverified persona says it cannot send and offers to resend its link.
 */
export function SenderPersonaList() {
  return (
    <ResourceList
      definition={resourcesByName['sender-personas']}
      entity="sender persona"
      cell={(column, record) => (column.source === 'verified_at' ? <PersonaStatusCell record={record} /> : undefined)}
    />
  );
}
