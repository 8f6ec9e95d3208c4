/** The email blasts list at /components/email-blasts (spec part 2 §2 Email blasts). */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList } from '../shared/ResourceList';

/** EmailBlastList lists blasts: view/edit, Disable (enabled only, confirmed), Name, Enabled, Send At, counts. */
export function EmailBlastList() {
  return <ResourceList definition={resourcesByName['email-blasts']} entity="email blast" editLabel="View / Edit" actionsFirst />;
}
