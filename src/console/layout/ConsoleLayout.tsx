/**
 * The console frame (spec part 1 §2 Navigation, §4): a left navigation tree at ≥1024 px, a top bar with a menu
 * button below, and the user menu (UserMenu) beside the name in both; the session cookie is refreshed on every route change, and the job log is polled every 15 s (§4).
 */
import { Suspense, useEffect, useState, type ReactNode } from 'react';
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { AppBar, Box, CircularProgress, Drawer, GlobalStyles, IconButton, Toolbar, Typography, useMediaQuery } from '@mui/material';
import MenuIcon from '@mui/icons-material/Menu';
import { useJobLogPolling } from '../account/useJobLogPolling';
import { refreshSession, useSession } from '../session';
import { NavTree } from './NavTree';
import { UserMenu } from './UserMenu';
import { AssistantWidget } from '../account/AssistantWidget';
import { PauseBanner } from '../account/PauseBanner';

const DRAWER_WIDTH = 250;

/** Loading is the spinner shown while a lazily loaded screen arrives. */
export function Loading() {
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
      <CircularProgress aria-label="Loading" />
    </Box>
  );
}

function Brand({ menu }: { menu: boolean }) {
  const session = useSession();
  return (
    <Box sx={{ px: 2, py: 1.5 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 1 }}>
        <Typography component={RouterLink} to="/insights" variant="h6" sx={{ color: 'inherit', textDecoration: 'none', fontWeight: 700 }}>
          Mailwright
        </Typography>
        {menu && <UserMenu />}
      </Box>
      {session && (
        // Wrapped, never cut: the company and the project each read whole in the 250 px drawer.
        <Typography variant="caption" component="div" color="text.secondary" sx={{ overflowWrap: 'anywhere' }} data-testid="nav-project">
          {session.company.name} / {session.project.name}
          {!session.not_in_sandbox && ' (sandbox)'}
        </Typography>
      )}
    </Box>
  );
}

/** ConsoleLayout is the react-admin layout: navigation plus the routed page. */
export function ConsoleLayout({ children }: { children?: ReactNode }) {
  const wide = useMediaQuery('(min-width:1024px)', { noSsr: true });
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  useJobLogPolling();

  useEffect(() => {
    refreshSession();
    setMenuOpen(false);
  }, [pathname]);

  return (
    <Box sx={{ display: 'flex', minHeight: '100vh', bgcolor: 'background.default' }}>
      {wide ? (
        <Drawer variant="permanent" sx={{ width: DRAWER_WIDTH, flexShrink: 0, '& .MuiDrawer-paper': { width: DRAWER_WIDTH, boxSizing: 'border-box' } }}>
          <Brand menu />
          <NavTree />
        </Drawer>
      ) : (
        <>
          {/* Whatever is scrolled or focused into view stops below the fixed top bar, not under it (WCAG 2.4.11). */}
          <GlobalStyles styles={{ html: { scrollPaddingTop: 72 } }} />
          <AppBar position="fixed">
            <Toolbar>
              <IconButton color="inherit" edge="start" aria-label="Open menu" onClick={() => setMenuOpen(true)} sx={{ mr: 1 }}>
                <MenuIcon />
              </IconButton>
              <Typography component={RouterLink} to="/insights" variant="h6" sx={{ color: 'inherit', textDecoration: 'none', flexGrow: 1 }}>
                Mailwright
              </Typography>
              <UserMenu onDark />
            </Toolbar>
          </AppBar>
          <Drawer variant="temporary" open={menuOpen} onClose={() => setMenuOpen(false)} sx={{ '& .MuiDrawer-paper': { width: DRAWER_WIDTH } }}>
            <Brand menu={false} />
            <NavTree onNavigate={() => setMenuOpen(false)} />
          </Drawer>
        </>
      )}
      <Box component="main" sx={{ flexGrow: 1, minWidth: 0, px: { xs: 1.5, sm: 3 }, pb: { xs: 1.5, sm: 3 }, pt: wide ? 3 : 10 }}>
        <PauseBanner />
        <Suspense fallback={<Loading />}>{children}</Suspense>
      </Box>
      <AssistantWidget />
    </Box>
  );
}
