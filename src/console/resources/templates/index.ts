/** The templates resource (spec part 2 §2 Templates): its screens, icon and record representation. */
import ArticleIcon from '@mui/icons-material/Article';
import { TemplateCreate } from './TemplateCreate';
import { TemplateEdit } from './TemplateEdit';
import { TemplateList } from './TemplateList';

export default {
  list: TemplateList,
  edit: TemplateEdit,
  create: TemplateCreate,
  icon: ArticleIcon,
  recordRepresentation: 'name',
};
