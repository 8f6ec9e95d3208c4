/** The template editor at /components/templates/edit/{id} (spec part 2 §2 Templates). */
import { useParams } from 'react-router-dom';
import { TemplateEditor } from './TemplateEditor';

/** TemplateEdit loads a template and edits it. */
export function TemplateEdit() {
  const { id } = useParams();
  return <TemplateEditor mode="edit" id={id} />;
}
