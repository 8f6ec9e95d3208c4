/**
 * The frame of every docs page inside the public site's frame: the docs' navigation on the left on wide screens, and
 * folded into a "Docs menu" above the page on phones (so a 390 px screen never scrolls sideways), then the page. It
 * sets the page's own title and description (usePageMeta).
 */
import { useId, type ReactNode } from 'react';
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { Box, Link, Typography, useMediaQuery } from '@mui/material';
import { PublicLayout } from '../PublicLayout';
import { usePageMeta } from '../pageMeta';
import { DOCS_NAV, docsTitle } from './docsPages';

/** isCurrent says whether the nav link `to` is the page at `pathname` (an API gateway's page counts as the API reference). */
function isCurrent(to: string, pathname: string): boolean {
  const path = pathname.replace(/\/+$/, '') || '/';
  return path === to || (to === '/docs/api' && path.startsWith('/docs/api/'));
}

/** NavList is the docs' navigation: each group's title and its links, the current page marked. */
function NavList({ onNavigate }: { onNavigate?: () => void }) {
  const { pathname } = useLocation();
  const id = useId();
  return (
    <>
      {DOCS_NAV.map((group, i) => (
        <Box key={group.title} sx={{ mb: 2 }}>
          <Typography
            id={`${id}-${i}`}
            sx={{ fontSize: '0.75rem', fontWeight: 700, letterSpacing: '0.06em', textTransform: 'uppercase', color: 'text.secondary', mb: 0.5 }}
          >
            {group.title}
          </Typography>
          <Box component="ul" aria-labelledby={`${id}-${i}`} sx={{ listStyle: 'none', m: 0, p: 0 }}>
            {group.links.map((link) => {
              const current = isCurrent(link.to, pathname);
              return (
                <li key={link.to}>
                  <Link
                    component={RouterLink}
                    to={link.to}
                    aria-current={current ? 'page' : undefined}
                    underline="hover"
                    onClick={onNavigate}
                    sx={{
                      display: 'block',
                      py: 0.75,
                      px: 1.5,
                      borderLeft: 3,
                      borderColor: current ? 'primary.main' : 'transparent',
                      bgcolor: current ? 'action.selected' : undefined,
                      color: current ? 'primary.dark' : 'text.primary',
                      fontWeight: current ? 600 : 400,
                      fontSize: '0.9375rem',
                    }}
                  >
                    {link.label}
                  </Link>
                </li>
              );
            })}
          </Box>
        </Box>
      ))}
    </>
  );
}

/**
 * DocsFrame renders a docs page: `title` (the document's title reads "<title> — Mailwright docs") and `description`
 * (its meta description), the navigation, and `children` (the page, starting with its h1).
 */
export function DocsFrame({ title, description, children }: { title: string; description: string; children: ReactNode }) {
  usePageMeta(docsTitle(title), description);
  const wide = useMediaQuery('(min-width:900px)', { noSsr: true });
  return (
    <PublicLayout>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: '240px minmax(0, 1fr)' }, gap: { xs: 2, md: 5 }, alignItems: 'start' }}>
        {wide ? (
          <Box component="nav" aria-label="Documentation" sx={{ position: 'sticky', top: 16, maxHeight: 'calc(100vh - 32px)', overflowY: 'auto' }}>
            <NavList />
          </Box>
        ) : (
          <Box component="nav" aria-label="Documentation">
            <Box
              component="details"
              sx={{
                border: 1,
                borderColor: 'divider',
                borderRadius: 1,
                '& > summary': { cursor: 'pointer', px: 2, py: 1.25, fontWeight: 600 },
                '& > summary:focus-visible': { outline: '2px solid', outlineColor: 'primary.main' },
              }}
            >
              <summary>Docs menu</summary>
              <Box sx={{ px: 1, pb: 1 }}>
                <NavList onNavigate={() => document.activeElement?.closest('details')?.removeAttribute('open')} />
              </Box>
            </Box>
          </Box>
        )}
        <Box component="article" sx={{ minWidth: 0 }}>
          {children}
        </Box>
      </Box>
    </PublicLayout>
  );
}
