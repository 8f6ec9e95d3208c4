/**
 * /docs/quick-start/<slug>: one quick start, its numbered steps from quickStarts.tsx, with its own title and
 * description; an unknown slug says so and lists the quick starts there are.
 */
import { useParams } from 'react-router-dom';
import { Box, Link, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import { DocsFrame } from './DocsFrame';
import { PageHeading, P, To } from './docsParts';
import { findQuickStart, QUICK_STARTS, quickStartPath } from './docsPages';
import { QUICK_START_BODIES } from './quickStarts';

/** QuickStartPage shows the quick start named by the route's `:slug`. */
export function QuickStartPage() {
  const { slug } = useParams();
  const meta = findQuickStart(slug);
  const Body = meta && QUICK_START_BODIES[meta.slug];
  if (!meta || !Body) {
    return (
      <DocsFrame title="Quick start not found" description="There is no such quick start in the Mailwright documentation.">
        <PageHeading title="Quick start not found" />
        <P>There is no quick start at this address. These are the ones there are:</P>
        <Box component="ul" sx={{ pl: 3 }}>
          {QUICK_STARTS.map((q) => (
            <li key={q.slug}>
              <To to={quickStartPath(q.slug)}>{q.title}</To>
            </li>
          ))}
        </Box>
      </DocsFrame>
    );
  }
  const index = QUICK_STARTS.indexOf(meta);
  const next = QUICK_STARTS[index + 1];
  return (
    <DocsFrame title={`Quick start: ${meta.title.charAt(0).toLowerCase()}${meta.title.slice(1)}`} description={meta.description}>
      <PageHeading eyebrow={`Quick start · about ${meta.minutes} minutes`} title={meta.title} lead={meta.summary} />
      <Body />
      {next && (
        <Box component="nav" aria-label="Next quick start" sx={{ mt: 5, pt: 2, borderTop: 1, borderColor: 'divider' }}>
          <Typography variant="body2" color="text.secondary">
            Next quick start
          </Typography>
          <Link component={RouterLink} to={quickStartPath(next.slug)} underline="hover" sx={{ fontSize: '1.125rem', fontWeight: 500 }}>
            {next.title} <span aria-hidden="true">→</span>
          </Link>
        </Box>
      )}
    </DocsFrame>
  );
}
