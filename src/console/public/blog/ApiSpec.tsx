/**
 * ApiSpec embeds an API document in a blog post (spec part 1 §2 /blog), loading swagger-ui-react only when
 * a post that embeds one is opened: the blog index and every other page never fetch it.
 */
import { lazy, Suspense } from 'react';
import { Box, CircularProgress, Link, Typography } from '@mui/material';

const SwaggerDoc = lazy(() => import('./SwaggerDoc').then((m) => ({ default: m.SwaggerDoc })));

/** ApiSpec shows the OpenAPI document at `url` under an h2 `title`, with a link to the raw file. */
export function ApiSpec({ url, title }: { url: string; title: string }) {
  const id = `spec-${url.replace(/[^a-z0-9]+/gi, '-')}`;
  return (
    <Box component="section" aria-labelledby={id} sx={{ mt: 4 }}>
      <Typography variant="h5" component="h2" id={id} gutterBottom>
        {title}
      </Typography>
      <Typography sx={{ mb: 1 }}>
        The document is also available as a file:{' '}
        <Link href={url} underline="always">
          {url}
        </Link>{' '}
        (OpenAPI 3.1, YAML).
      </Typography>
      <Suspense
        fallback={
          <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
            <CircularProgress aria-label="Loading the API document" />
          </Box>
        }
      >
        <SwaggerDoc url={url} />
      </Suspense>
    </Box>
  );
}
