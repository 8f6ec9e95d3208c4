/** /docs/changelog: what changed in each release, newest first (changelog.ts). */
import { Box, Typography } from '@mui/material';
import { DocsFrame } from './DocsFrame';
import { PageHeading } from './docsParts';
import { RELEASES } from './changelog';

/** formatDate reads a YYYY-MM-DD day as "November 29, 2026" (the day itself, whatever the reader's zone). */
export function formatDate(day: string): string {
  return new Date(`${day}T12:00:00Z`).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
}

/** ChangelogPage lists the releases. */
export function ChangelogPage() {
  return (
    <DocsFrame title="Changelog" description="What changed in Mailwright, release by release, newest first.">
      <PageHeading title="Changelog" lead="What changed in Mailwright, release by release, newest first." />
      <Box component="ol" aria-label="Releases, newest first" sx={{ listStyle: 'none', m: 0, p: 0 }}>
        {RELEASES.map((r) => (
          <Box
            component="li"
            key={r.date}
            sx={{
              display: 'grid',
              gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: '160px minmax(0, 1fr)' },
              gap: { xs: 0.5, sm: 3 },
              py: 3,
              borderTop: 1,
              borderColor: 'divider',
            }}
          >
            <Typography color="text.secondary" sx={{ fontWeight: 500, pt: { sm: 0.5 } }}>
              <time dateTime={r.date}>{formatDate(r.date)}</time>
            </Typography>
            <Box component="article" aria-labelledby={`release-${r.date}`}>
              <Typography variant="h5" component="h2" id={`release-${r.date}`} sx={{ fontWeight: 500, mb: 1 }}>
                {r.title}
              </Typography>
              <Box component="ul" sx={{ m: 0, pl: 2.5, maxWidth: '80ch', '& li': { mb: 0.75 } }}>
                {r.changes.map((c) => (
                  <li key={c}>{c}</li>
                ))}
              </Box>
            </Box>
          </Box>
        ))}
      </Box>
    </DocsFrame>
  );
}
