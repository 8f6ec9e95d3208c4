/** The segments list at /people/segments (spec part 2 §2 Segments): generated from the listSegments x-resource. */
import { resourcesByName } from '../../../../generated/resources.gen';
import { ResourceList } from '../shared/ResourceList';

/** SegmentList lists segments (name, contacts, added) newest first, 10 a page, with search, edit and the create links. */
export function SegmentList() {
  return <ResourceList definition={resourcesByName.segments} entity="segment" searchLabels={{ name: 'Name' }} />;
}
