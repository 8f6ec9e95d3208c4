/** The new sender persona form at /people/sender-personas/new (spec part 2 §2, §5 Sender persona). */
import { SenderPersonaForm } from './SenderPersonaForm';

/** SenderPersonaCreate renders the persona form; Save stays disabled while the email is invalid. */
export function SenderPersonaCreate() {
  return <SenderPersonaForm mode="create" />;
}
