/** The campaigns resource (spec part 2 §2 Campaigns): its screens, icon and record representation. */
import CampaignIcon from '@mui/icons-material/Campaign';
import { CampaignCreate, CampaignEdit } from './CampaignForm';
import { CampaignList } from './CampaignList';

export default {
  list: CampaignList,
  edit: CampaignEdit,
  create: CampaignCreate,
  icon: CampaignIcon,
  recordRepresentation: 'name',
};
