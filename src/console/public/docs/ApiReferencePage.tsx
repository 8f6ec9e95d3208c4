/**
 * The API reference: /docs/api lists every gateway by group, and /docs/api/<service> renders that gateway's OpenAPI
 * document (served read-only by the server at /openapi/<service>.json, the very document its routes are registered
 * from) with swagger-ui: every operation, listed and collapsed, each with its parameters, request body and answers
 * and the examples swagger-ui makes from their schemas. "Try it out" stays on: a call goes to this site with the key
 * entered under Authorize. swagger-ui (SwaggerDoc, shared with the blog) loads only on a gateway's page.
 */
import { lazy, Suspense } from 'react';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { Box, Card, CardContent, CircularProgress, Link, Typography } from '@mui/material';
import { DocsFrame } from './DocsFrame';
import { C, Note, P, PageHeading, Section, To, UiPath } from './docsParts';
import { apiDocumentUrl, apiReferencePath, findGateway, GATEWAY_GROUPS, GATEWAYS, type GatewayMeta } from './docsPages';

const SwaggerDoc = lazy(() => import('../blog/SwaggerDoc').then((m) => ({ default: m.SwaggerDoc })));

/** AuthNote says how a gateway's calls are authenticated, and what "Try it out" does on its page. */
function AuthNote({ gateway }: { gateway: GatewayMeta }) {
  if (gateway.auth === 'none')
    return (
      <Note title="No key needed.">
        These calls are made by visitors who are not signed in. <strong>Try it out</strong> sends the request from this page to this site, for real.
      </Note>
    );
  if (gateway.auth === 'operator')
    return (
      <Note title="For operators.">
        These calls need an operator’s session cookie: sign in to the back-office at <C>/operator/login</C> in this browser first (operators are created with{' '}
        <C>npm run admin -- create-operator</C>). Changes are taken only from this site, with a JSON body or an <C>X-Requested-With</C> header.
      </Note>
    );
  return (
    <Note title="Try it out calls your account.">
      Press <strong>Authorize</strong>, paste your API key (from <UiPath parts={['Account', 'Integrations']} />
      ), then open an operation and press <strong>Try it out</strong>: the request goes to this site with your key in <C>x-api-key</C> and changes your
      account’s real data. A sandboxed account is a safe place to experiment.
    </Note>
  );
}

/** ApiIndexPage is /docs/api: the basics and every gateway, grouped. */
export function ApiIndexPage() {
  return (
    <DocsFrame
      title="API reference"
      description="The Mailwright API reference: every gateway and operation, with request and answer schemas, examples and Try it out."
    >
      <PageHeading
        title="API reference"
        lead="Everything the console does, your code can do. The API is split into gateways, one per kind of record, each with its own page listing every operation."
      />
      <Box component="dl" sx={{ m: 0, maxWidth: '80ch', '& dt': { fontWeight: 600, mt: 2 }, '& dd': { ml: 0, mt: 0.5 } }}>
        <dt>Base address</dt>
        <dd>
          A gateway lives at <C>{`${window.location.origin}/api/<gateway>`}</C>; each page below gives its name and operations.
        </dd>
        <dt>Authentication</dt>
        <dd>
          Your project’s API key in the <C>x-api-key</C> header, from <UiPath parts={['Account', 'Integrations']} />. Sign-in, sign-up and the contact form need
          none.
        </dd>
        <dt>Formats</dt>
        <dd>
          JSON in and out (<C>Content-Type: application/json</C>). A refused call answers 4xx with <C>{'{"errors":["field: message", …]}'}</C>.
        </dd>
        <dt>Machine-readable</dt>
        <dd>
          Each gateway’s OpenAPI 3.1 document is at <C>/openapi/&lt;gateway&gt;.json</C>, for code generators and API tools.
        </dd>
      </Box>
      {GATEWAY_GROUPS.map((group) => {
        const id = `gateways-${group.title.toLowerCase()}`;
        return (
          <Section key={group.title} title={group.title} id={id}>
            <Box
              component="ul"
              aria-labelledby={id}
              sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))' }, m: 0, p: 0 }}
            >
              {group.gateways.map((g) => (
                <Card key={g.service} variant="outlined" component="li" sx={{ listStyle: 'none', '&:hover': { borderColor: 'primary.main' } }}>
                  <CardContent>
                    <Typography variant="h6" component="h3" sx={{ fontWeight: 600 }}>
                      <Link component={RouterLink} to={apiReferencePath(g.service)} underline="hover">
                        {g.name}
                      </Link>
                    </Typography>
                    <Typography variant="body2" color="text.secondary" sx={{ mb: 1, fontFamily: 'monospace' }}>
                      /api/{g.service}
                    </Typography>
                    <Typography>{g.summary}</Typography>
                  </CardContent>
                </Card>
              ))}
            </Box>
          </Section>
        );
      })}
    </DocsFrame>
  );
}

/** ApiGatewayPage is /docs/api/<service>: the gateway's operations rendered by swagger-ui. */
export function ApiGatewayPage() {
  const { service } = useParams();
  const gateway = findGateway(service);
  if (!gateway) {
    return (
      <DocsFrame title="Gateway not found" description="There is no such gateway in the Mailwright API reference.">
        <PageHeading title="Gateway not found" />
        <P>
          There is no gateway called <C>{service ?? ''}</C>. The <To to="/docs/api">API reference</To> lists every one.
        </P>
      </DocsFrame>
    );
  }
  const url = apiDocumentUrl(gateway.service);
  const index = GATEWAYS.indexOf(gateway);
  const [previous, next] = [GATEWAYS[index - 1], GATEWAYS[index + 1]];
  return (
    <DocsFrame title={`API reference: ${gateway.name}`} description={`The ${gateway.name} API of Mailwright (/api/${gateway.service}): ${gateway.summary}`}>
      <Link component={RouterLink} to="/docs/api" underline="always" sx={{ display: 'inline-block', mb: 1 }}>
        <span aria-hidden="true">← </span>All gateways
      </Link>
      <PageHeading eyebrow="API reference" title={gateway.name} lead={gateway.summary} />
      <Box
        component="dl"
        sx={{
          m: 0,
          mb: 2,
          display: 'grid',
          gridTemplateColumns: 'max-content minmax(0, 1fr)',
          columnGap: 2,
          rowGap: 0.5,
          '& dt': { fontWeight: 600 },
          '& dd': { m: 0 },
        }}
      >
        <dt>Base path</dt>
        <dd>
          <C>/api/{gateway.service}</C>
        </dd>
        <dt>Document</dt>
        <dd>
          <Link href={url} underline="always">
            {url}
          </Link>{' '}
          (OpenAPI 3.1)
        </dd>
      </Box>
      <AuthNote gateway={gateway} />
      <Box component="section" aria-labelledby="operations-heading" sx={{ mt: 3 }}>
        <Typography variant="h5" component="h2" id="operations-heading" sx={{ fontWeight: 500 }}>
          Operations
        </Typography>
        {/* Scrolls sideways inside itself on a phone rather than widening the page. */}
        <Box sx={{ overflowX: 'auto', mx: { xs: -1, sm: 0 } }}>
          <Suspense
            fallback={
              <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
                <CircularProgress aria-label="Loading the operations" />
              </Box>
            }
          >
            <SwaggerDoc key={url} url={url} />
          </Suspense>
        </Box>
      </Box>
      <Box
        component="nav"
        aria-label="Other gateways"
        sx={{ display: 'flex', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap', mt: 4, pt: 2, borderTop: 1, borderColor: 'divider' }}
      >
        {previous ? (
          <Link component={RouterLink} to={apiReferencePath(previous.service)} underline="hover">
            <span aria-hidden="true">← </span>
            {previous.name}
          </Link>
        ) : (
          <span />
        )}
        {next && (
          <Link component={RouterLink} to={apiReferencePath(next.service)} underline="hover">
            {next.name}
            <span aria-hidden="true"> →</span>
          </Link>
        )}
      </Box>
    </DocsFrame>
  );
}
