/**
 * /blog/<slug> (spec part 1 §2 Public pages, /blog): one post, with its title as the page's h1, its date
 * and its body; an unknown slug says so and links back to /blog. Reads `:slug` from the route.
 */
import { Link as RouterLink, useParams } from 'react-router-dom';
import { Box, Button, Link, Typography } from '@mui/material';
import { pageTitle, usePageMeta } from '../pageMeta';
import { PublicLayout } from '../PublicLayout';
import { formatPostDate } from './postMeta';
import { findPost } from './posts';

/** BlogPostPage shows the post named by the route's `:slug`, or a not-found message. */
export function BlogPostPage() {
  const { slug } = useParams();
  const post = findPost(slug);
  usePageMeta(pageTitle(post ? post.title : 'Post not found'), post ? post.summary : `There is no blog post at /blog/${slug ?? ''} on the Mailwright blog.`);

  if (!post) {
    return (
      <PublicLayout>
        <Typography variant="h3" component="h1" gutterBottom>
          Post not found
        </Typography>
        <Typography sx={{ mb: 3 }}>There is no blog post at /blog/{slug}. It may have moved, or the address may be mistyped.</Typography>
        <Button variant="contained" component={RouterLink} to="/blog">
          Back to the blog
        </Button>
      </PublicLayout>
    );
  }

  const { Body } = post;
  return (
    <PublicLayout>
      <Box component="article">
        <Link component={RouterLink} to="/blog" underline="always" sx={{ display: 'inline-block', mb: 2 }}>
          <span aria-hidden="true">← </span>All posts
        </Link>
        <Typography variant="h3" component="h1" gutterBottom>
          {post.title}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          <time dateTime={post.date}>{formatPostDate(post.date)}</time>
        </Typography>
        <Body />
      </Box>
    </PublicLayout>
  );
}
