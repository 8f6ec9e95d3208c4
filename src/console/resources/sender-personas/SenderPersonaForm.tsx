/**
 * The sender persona form of /people/sender-personas/new and /edit/{id} (spec part 2 §2, §5 Sender persona): email
 * validated with Save disabled while invalid, first name required, the advice below. When the server wrote the email's
 * domain in the casing of a registered sending domain, the spec's notice shows for 30 seconds.
 */
import { useNotify, type RaRecord } from 'react-admin';
import { resourcesByName } from '../../../../generated/resources.gen';
import { casingNotice, registeredCasing } from '../../../domain/sendingDomain';
import { ResourceForm } from '../shared/ResourceForm';
import { SenderPersonaAdvice } from './SenderPersonaAdvice';
import { PersonaStatus } from './PersonaVerification';

/** How long the domain-casing notice stays (spec part 2 §5: 30 seconds). */
const CASING_NOTICE_MS = 30_000;

/** SenderPersonaForm renders the persona form in `mode`. */
export function SenderPersonaForm({ mode }: { mode: 'create' | 'edit' }) {
  const notify = useNotify();
  const explainRewrite = (submitted: Record<string, unknown>, saved: RaRecord) => {
    const savedDomain =
      String(saved.email ?? '')
        .split('@')
        .pop() ?? '';
    const rewrite = registeredCasing(String(submitted.email ?? '').trim(), [savedDomain]);
    if (rewrite.provided && rewrite.registered)
      notify(casingNotice(rewrite.provided, rewrite.registered), { type: 'info', autoHideDuration: CASING_NOTICE_MS });
  };
  return (
    <ResourceForm
      definition={resourcesByName['sender-personas']}
      entity="sender persona"
      mode={mode}
      emailFields={['email']}
      requiredFields={['first_name']}
      disableSaveWhileEmailInvalid
      afterSave={explainRewrite}
    >
      {mode === 'edit' && <PersonaStatus />}
      <SenderPersonaAdvice />
    </ResourceForm>
  );
}
