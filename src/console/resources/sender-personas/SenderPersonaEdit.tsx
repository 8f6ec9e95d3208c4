/** The sender persona form at /people/sender-personas/edit/{id} (spec part 2 §2, §5 Sender persona). */
import { SenderPersonaForm } from './SenderPersonaForm';

/** SenderPersonaEdit loads a persona and renders its form. */
export function SenderPersonaEdit() {
  return <SenderPersonaForm mode="edit" />;
}
