/** Logged-out paths with no page of their own (spec part 1 §2 Public pages, Authenticated routes). */
import { Suspense } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { isProtectedPath } from '../routes';
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
  return (
    <PublicLayout>
      <h1 className="mw-page-title">Page not found</h1>
      <p>There is no page at {pathname}.</p>
      <Link to="/" className="mw-button mw-contained">
        Back to the home page
      </Link>
    </PublicLayout>
  );
}
