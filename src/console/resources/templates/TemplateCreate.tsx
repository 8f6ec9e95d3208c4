/** The new-template editor at /components/templates/new and /new/{id} (a copy of template {id}) (spec part 2 §2). */
import { useParams } from 'react-router-dom';
import { TemplateEditor } from './TemplateEditor';

/** TemplateCreate starts a new template, empty or from a copy of the template in the route. */
export function TemplateCreate() {
  const { id } = useParams();
  return <TemplateEditor mode="create" id={id} />;
}
