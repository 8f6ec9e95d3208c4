/**
 * The app's one router tree (spec part 1 §2, §6): the public site while logged out (authenticated routes show the
 * About page), the react-admin console while a session exists; leaving the session goes to /login. Only the home page
 * is in the entry bundle, and it uses no component library; every other page (with MUI and the public theme), and the
 * whole console, load when first opened. /operator/* is the operators' back-office, apart from both. The public site's base styles are in index.html and site.css.
 */
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import { HomePage } from './public/HomePage';
import { PublicFallback } from './public/PublicFallback';
import { page, PageLoading, publicPageRoutes } from './public/publicRoutes';
import { useSession } from './session';
import { GlobalToast } from './toast';

const ConsoleApp = lazy(() => import('./ConsoleApp'));
const LoginPage = page(() => import('./public/LoginPage'), 'LoginPage');
const LogoutPage = page(() => import('./public/LogoutPage'), 'LogoutPage');
// The operators' back-office: its own sign-in and pages, whatever the customer session.
const OperatorApp = page(() => import('./operator/OperatorApp'), 'OperatorApp');

function PublicSite() {
  return (
    <Suspense fallback={<PageLoading />}>
      <Routes>
        <Route path="/" element={<HomePage />} />
        <Route path="/login" element={<LoginPage />} />
        <Route path="/logout" element={<LogoutPage />} />
        {publicPageRoutes()}
        <Route path="*" element={<PublicFallback />} />
      </Routes>
    </Suspense>
  );
}

/** App picks the public site or the console from the session cookie and shows the page-level toast. */
export function App() {
  const session = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const had = useRef(!!session);
  const operator = pathname === '/operator' || pathname.startsWith('/operator/');

  useEffect(() => {
    if (had.current && !session && !operator) navigate('/login', { replace: true });
    had.current = !!session;
  }, [session, navigate, operator]);

  if (operator) {
    return (
      <Suspense fallback={<PageLoading />}>
        <Routes>
          <Route path="/operator/*" element={<OperatorApp />} />
        </Routes>
      </Suspense>
    );
  }

  return (
    <>
      {session ? (
        <Suspense fallback={<PageLoading />}>
          <ConsoleApp />
        </Suspense>
      ) : (
        <PublicSite />
      )}
      <GlobalToast />
    </>
  );
}
