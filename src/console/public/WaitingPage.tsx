/**
 * /waiting-for-architecture (spec part 1 §2): the spec's post-sign-up wait page. The account is usable the moment
 * sign-up succeeds, so sign-up lands in the console instead; this route (an old link, a bookmark) leads to the console
 * when signed in, else to Log in.
 */
import { Navigate } from 'react-router-dom';
import { useSession } from '../session';

/** WaitingPage sends the visitor on: to Insights when signed in, else to /login. */
export function WaitingPage() {
  return <Navigate to={useSession() ? '/insights' : '/login'} replace />;
}
