/**
 * The app's one router tree (spec part 1 §2, §6): the public site while logged out (authenticated routes show the
 * About page), the react-admin console while a session exists; leaving the session goes to /login.
 */
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Route, Routes, useNavigate } from 'react-router-dom';
import { CssBaseline, ThemeProvider, createTheme } from '@mui/material';
import { Loading } from './layout/ConsoleLayout';
import { AboutPage } from './public/AboutPage';
import { HomePage } from './public/HomePage';
import { LoginPage } from './public/LoginPage';
import { LogoutPage } from './public/LogoutPage';
import { DealMirrorPage } from './public/DealMirrorPage';
import { PricingPage } from './public/PricingPage';
import { PublicFallback } from './public/PublicPlaceholder';
import { useSession } from './session';
import { GlobalToast } from './toast';

const ConsoleApp = lazy(() => import('./ConsoleApp'));

const publicTheme = createTheme({ palette: { primary: { main: '#1565c0' } } });

function PublicSite() {
  return (
    <ThemeProvider theme={publicTheme}>
      <CssBaseline />
      <Routes>
        <Route path="/" element={<HomePage />} />
        <Route path="/login" element={<LoginPage />} />
        <Route path="/about" element={<AboutPage />} />
        <Route path="/pricing" element={<PricingPage />} />
        <Route path="/deal-mirror" element={<DealMirrorPage />} />
        <Route path="/logout" element={<LogoutPage />} />
        <Route path="*" element={<PublicFallback />} />
      </Routes>
    </ThemeProvider>
  );
}

/** App picks the public site or the console from the session cookie and shows the page-level toast. */
export function App() {
  const session = useSession();
  const navigate = useNavigate();
  const had = useRef(!!session);

  useEffect(() => {
    if (had.current && !session) navigate('/login', { replace: true });
    had.current = !!session;
  }, [session, navigate]);

  return (
    <>
      {session ? (
        <Suspense fallback={<Loading />}>
          <ConsoleApp />
        </Suspense>
      ) : (
        <PublicSite />
      )}
      <GlobalToast />
    </>
  );
}
