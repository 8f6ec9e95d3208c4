/** The segments resource (spec part 2 §2 Segments): its screens, icon and record representation. */
import GroupsIcon from '@mui/icons-material/Groups';
import { SegmentEdit } from './SegmentEdit';
import { SegmentFilterPage } from './SegmentFilterPage';
import { SegmentList } from './SegmentList';

export default {
  list: SegmentList,
  edit: SegmentEdit,
  create: SegmentEdit,
  filter: SegmentFilterPage,
  icon: GroupsIcon,
  recordRepresentation: 'name',
};
