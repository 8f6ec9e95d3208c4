/** The templates list at /components/templates (spec part 2 §2 Templates): edit, duplicate and archive per row. */
import { useCreate, useNotify, useRecordContext, useRefresh } from 'react-admin';
import { Button } from '@mui/material';
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList } from '../shared/ResourceList';
import { uuidv4 } from '../../uuid';

const definition = resourcesByName.templates;

/** DuplicateTemplateButton saves a copy of the row's template, named "Copy of {name}", under a new id. */
function DuplicateTemplateButton() {
  const record = useRecordContext();
  const [create, { isPending }] = useCreate();
  const notify = useNotify();
  const refresh = useRefresh();
  if (!record) return null;
  const duplicate = () => {
    const { nameField, prefix } = definition.list.duplicate ?? { nameField: 'name', prefix: 'Copy of ' };
    const data = {
      id: uuidv4(),
      name: `${prefix}${record[nameField]}`,
      subject: record.subject,
      type: record.type,
      enabled: record.enabled ?? true,
      html_body: record.html_body,
      plain_text_body: record.plain_text_body ?? null,
      channel_id: record.channel_id ?? null,
      json: record.json ?? null,
    };
    create(
      'templates',
      { data },
      {
        onSuccess: () => {
          notify('Successfully saved template', { type: 'success' });
          refresh();
        },
        onError: (error) => notify(`Couldn't save template: ${(error as Error)?.message ?? error}`, { type: 'error' }),
      },
    );
  };
  return (
    <Button size="small" onClick={duplicate} disabled={isPending}>
      Duplicate
    </Button>
  );
}

/** TemplateList lists templates newest first, names cut at 35 characters. */
export function TemplateList() {
  return <ResourceList definition={definition} entity="template" rowActions={<DuplicateTemplateButton />} />;
}
