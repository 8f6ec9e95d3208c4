/**
 * Topics (/people/topics; openapi/subscriptions.yaml): the project's subscription topics — add, rename, delete — each
 * with how many contacts left it and how many unsubscribes it had. A marketing template or a blast names its topic;
 * its unsubscribe link then lets a recipient leave just that topic. The whole screen is generated from listTopics'
 * `x-screen` (ManagedList).
 */
import { screensByName } from '../../../generated/screens.gen';
import { ManagedList } from '../resources/shared/ManagedList';

/** TopicsPage is /people/topics. */
export function TopicsPage() {
  return <ManagedList definition={screensByName.topics} />;
}
