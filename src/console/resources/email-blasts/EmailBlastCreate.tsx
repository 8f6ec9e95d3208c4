/**
 * The new email blast form at /components/email-blasts/new (spec part 2 §2 Email blasts, §4, §5 Email blast): the
 * generated ResourceForm of the email-blasts resource (openapi/scheduler.yaml, form EmailBlastForm) — name, template,
 * sender persona, topic, the schedule (Send now, or date, time and timezone; default the next quarter hour in UTC) and
 * the audience — with the custom parts of blastFormFields.tsx. Save & Send posts one blast with a client-generated v4
 * id, then goes to its edit route.
 */
import { useMemo } from 'react';
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceForm } from '../shared/ResourceForm';
import { BlastScheduleField, ContactsWidget, SegmentsWidget } from './blastFormFields';
import { blastRecordOf, newBlastForm, validateBlastForm, type BlastForm } from './blastForm';

const WIDGETS = { segments: SegmentsWidget, contacts: ContactsWidget };
const FIELDS = { blastSchedule: BlastScheduleField };

/** EmailBlastCreate renders and submits the new-blast form. */
export function EmailBlastCreate() {
  const initial = useMemo(() => newBlastForm() as Record<string, unknown>, []);
  return (
    <ResourceForm
      definition={resourcesByName['email-blasts']}
      entity="email blast"
      mode="create"
      initialNew={initial}
      widgets={WIDGETS}
      fields={FIELDS}
      validate={validateBlastForm}
      toRecord={(data) => blastRecordOf(data as BlastForm)}
    />
  );
}
