/**
 * /blog (spec part 1 §2 Public pages: "index of six posts, newest first"): each post's title (a link to
 * /blog/<slug>), date and summary. Imports only the posts' metadata, so this page loads none of the posts' bodies and
 * never swagger-ui.
 */
import { Link as RouterLink } from 'react-router-dom';
import { Box, Card, CardContent, Link, Typography } from '@mui/material';
import { pageTitle, usePageMeta } from '../pageMeta';
import { PublicLayout } from '../PublicLayout';
import { formatPostDate, INDEX_POSTS } from './postMeta';

/** BlogIndexPage lists the blog's posts, newest first. */
export function BlogIndexPage() {
  usePageMeta(
    pageTitle('Blog'),
    'How to get the most from pay-as-you-go email: timezone-aware sending, event-triggered and drip campaigns, the API and integrations.',
  );
  return (
    <PublicLayout>
      <Typography variant="h3" component="h1" gutterBottom>
        Blog
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3, maxWidth: '75ch' }}>
        How to get the most from pay-as-you-go email: timezone-aware sending, event-triggered and drip campaigns, the API and integrations.
      </Typography>
      <Box component="ol" aria-label="Posts, newest first" sx={{ listStyle: 'none', p: 0, m: 0, display: 'grid', gap: 2 }}>
        {INDEX_POSTS.map((post) => (
          <Box component="li" key={post.slug}>
            <Card variant="outlined" component="article">
              <CardContent>
                <Typography variant="h5" component="h2" gutterBottom>
                  <Link component={RouterLink} to={`/blog/${post.slug}`} underline="hover">
                    {post.title}
                  </Link>
                </Typography>
                <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
                  <time dateTime={post.date}>{formatPostDate(post.date)}</time>
                </Typography>
                <Typography>{post.summary}</Typography>
              </CardContent>
            </Card>
          </Box>
        ))}
      </Box>
    </PublicLayout>
  );
}
