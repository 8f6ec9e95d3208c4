/**
 * The building blocks of the blog's post bodies (spec part 1 §2 Public pages, /blog): a section with its
 * h2, a paragraph, an in-site link, inline code and a code block. Headings below the page's h1 are h2 (sections) and
 * h3; links are underlined so they stand out from the text without colour.
 */
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Box, Link, Typography } from '@mui/material';

/** Section is a titled part of a post: an h2 (or h3 with `level={3}`) and its content. */
export function Section({ title, level = 2, children }: { title: string; level?: 2 | 3; children: ReactNode }) {
  return (
    <Box component="section" sx={{ mt: level === 2 ? 4 : 3 }}>
      <Typography variant={level === 2 ? 'h5' : 'h6'} component={level === 2 ? 'h2' : 'h3'} gutterBottom>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

/** P is a paragraph of body text. */
export function P({ children }: { children: ReactNode }) {
  return <Typography sx={{ mb: 2, maxWidth: '75ch' }}>{children}</Typography>;
}

/** To links to a page of this site (client-side navigation). */
export function To({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link component={RouterLink} to={to} underline="always">
      {children}
    </Link>
  );
}

/** C is inline code (a field, a header, a value); a long one breaks anywhere rather than widen a phone's page. */
export function C({ children }: { children: ReactNode }) {
  return (
    <Box
      component="code"
      sx={{
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
        fontSize: '0.875em',
        bgcolor: 'grey.100',
        px: 0.5,
        borderRadius: 0.5,
        overflowWrap: 'anywhere',
      }}
    >
      {children}
    </Box>
  );
}

/**
 * Code is a block of code or a shell command, labelled for screen readers; it scrolls sideways when long, and can be
 * focused so keyboard users can scroll it too.
 */
export function Code({ label, children }: { label: string; children: string }) {
  return (
    <Box
      component="pre"
      role="region"
      aria-label={label}
      tabIndex={0}
      sx={{
        fontFamily: 'monospace',
        fontSize: '0.875rem',
        bgcolor: 'grey.100',
        color: 'text.primary',
        p: 2,
        borderRadius: 1,
        overflowX: 'auto',
        mt: 0,
        mb: 2,
        maxWidth: '100%',
        '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.main' },
      }}
    >
      <code>{children}</code>
    </Box>
  );
}
