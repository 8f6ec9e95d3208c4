/** The contacts list at /people and /people/users (spec part 2 §2 Contacts). */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList } from '../shared/ResourceList';

const definition = resourcesByName.contacts;
const searchLabels = { all: 'Email, name, id or date', ...Object.fromEntries(definition.list.columns.map((c) => [c.source, c.label])) };

/** ContactList lists contacts with search, sorting, paging, edit and archive. */
export function ContactList() {
  return <ResourceList definition={definition} entity="contact" searchLabels={searchLabels} />;
}
