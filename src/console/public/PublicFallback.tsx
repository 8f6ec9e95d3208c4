/** Logged-out paths with no page of their own (spec part 1 §2 Public pages, Authenticated routes). */
import { Suspense } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { isProtectedPath } from '../routes';
import { pageTitle, usePageMeta } from './pageMeta';
import { PublicLayout } from './PublicLayout';
import { page, PageLoading } from './publicRoutes';

const AboutPage = page(() => import('./AboutPage'), 'AboutPage');

/**
 * PublicFallback renders the About page for an authenticated route visited while logged out (spec part 1 §2), else a
 * not-found page.
 */
export function PublicFallback() {
  const { pathname } = useLocation();
  if (isProtectedPath(pathname)) {
    return (
      <Suspense fallback={<PageLoading />}>
        <AboutPage />
      </Suspense>
    );
  }
  return <NotFound pathname={pathname} />;
}

/** NotFound says there is no page at `pathname` and leads home. */
function NotFound({ pathname }: { pathname: string }) {
  usePageMeta(pageTitle('Page not found'), `There is no page at ${pathname} on the Mailwright site.`);
  return (
    <PublicLayout>
      <div className="mw-prose">
        <h1 className="mw-page-title">Page not found</h1>
        <p>There is no page at {pathname}. It may have moved, or the address may be mistyped.</p>
        <div className="mw-actions">
          <Link to="/" className="mw-button mw-contained">
            Back to the home page
          </Link>
          <Link to="/status" className="mw-button mw-outlined">
            Service status
          </Link>
        </div>
      </div>
    </PublicLayout>
  );
}
