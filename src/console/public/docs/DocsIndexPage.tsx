/**
 * /docs: what the documentation holds — the quick starts, the API reference and the changelog — and the basics every
 * API call shares (where, how it is authenticated, what a refusal looks like, the sandbox).
 */
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Box, Card, CardContent, Link, Typography } from '@mui/material';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox';
import { DocsFrame } from './DocsFrame';
import { C, PageHeading, Section, UiPath } from './docsParts';
import { GATEWAYS, QUICK_STARTS, quickStartPath } from './docsPages';
import { RELEASES } from './changelog';
import { formatDate } from './ChangelogPage';

/** LinkCard is a card whose title (an h3) links to `to`, with `children` below it. */
function LinkCard({ to, title, meta, children }: { to: string; title: string; meta?: string; children: ReactNode }) {
  return (
    <Card variant="outlined" component="li" sx={{ listStyle: 'none', display: 'flex', '&:hover': { borderColor: 'primary.main' } }}>
      <CardContent sx={{ flexGrow: 1 }}>
        <Typography variant="h6" component="h3" sx={{ fontWeight: 600, mb: 0.5 }}>
          <Link component={RouterLink} to={to} underline="hover">
            {title}
          </Link>
        </Typography>
        {meta && (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {meta}
          </Typography>
        )}
        <Typography>{children}</Typography>
      </CardContent>
    </Card>
  );
}

const GRID = { display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))' }, m: 0, p: 0 } as const;

/** DocsIndexPage is the documentation's home. */
export function DocsIndexPage() {
  const latest = RELEASES[0];
  return (
    <DocsFrame
      title="Documentation"
      description="Mailwright documentation: quick starts for the console, the API, webhooks and running it yourself, the full API reference, and the changelog."
    >
      <PageHeading
        title="Mailwright documentation"
        lead="Send marketing and transactional email from the console or from your code, and run Mailwright on your own servers. Start with a quick start, look things up in the API reference."
      />

      <Section title="Quick starts" id="quick-starts">
        <Box component="ul" aria-labelledby="quick-starts" sx={GRID}>
          {QUICK_STARTS.map((q) => (
            <LinkCard key={q.slug} to={quickStartPath(q.slug)} title={q.title} meta={`About ${q.minutes} minutes`}>
              {q.summary}
            </LinkCard>
          ))}
        </Box>
      </Section>

      <Section title="Reference" id="reference">
        <Box component="ul" aria-labelledby="reference" sx={GRID}>
          <LinkCard to="/docs/api" title="API reference" meta={`${GATEWAYS.length} gateways`}>
            Every operation of every gateway — contacts, templates, blasts, events, webhooks and more — with its fields, answers and examples. Try any call from
            the page.
          </LinkCard>
          <LinkCard to="/docs/changelog" title="Changelog" meta={`Latest: ${formatDate(latest.date)}`}>
            {latest.title}, and every release before it.
          </LinkCard>
        </Box>
      </Section>

      <Section title="The basics" id="basics">
        <Box component="dl" sx={{ m: 0, maxWidth: '80ch', '& dt': { fontWeight: 600, mt: 2 }, '& dd': { ml: 0, mt: 0.5 } }}>
          <dt>Where</dt>
          <dd>
            Each part of the API is a gateway on this site at <C>/api/&lt;gateway&gt;</C>: contacts at <C>/api/user</C>, email blasts at <C>/api/scheduler</C>,
            single sends and events at <C>/api/event</C>. Requests and answers are JSON.
          </dd>
          <dt>Authentication</dt>
          <dd>
            Send your project’s API key in the <C>x-api-key</C> header. Find it in the console under <UiPath parts={['Account', 'Integrations']} />; a missing
            or unknown key answers <C>401</C>.
          </dd>
          <dt>Refusals</dt>
          <dd>
            A refused call answers 4xx with every problem at once, each naming its field: <C>{'{"errors":["users[0].email: Required field"]}'}</C>.
          </dd>
          <dt>The sandbox</dt>
          <dd>
            A new account sends only to <C>{SIMULATOR_SUCCESS_ADDRESS}</C> and to its own sender personas until it is activated; everything else works as it
            will later.
          </dd>
        </Box>
        <Typography sx={{ mt: 3, maxWidth: '75ch' }}>
          New here?{' '}
          <Link component={RouterLink} to={quickStartPath('first-blast-from-the-console')} underline="always">
            Send a first blast from the console
          </Link>{' '}
          takes ten minutes and no code.
        </Typography>
      </Section>
    </DocsFrame>
  );
}
