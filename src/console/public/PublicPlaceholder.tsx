/** Public pages that belong to later issues, and unknown public paths (spec part 1 §2 Public pages). */
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { Button, Typography } from '@mui/material';
import { isProtectedPath, publicFeatureFor } from '../routes';
import { AboutPage } from './AboutPage';
import { PublicLayout } from './PublicLayout';

/** PublicPlaceholder names a public feature that is coming in a later release. */
export function PublicPlaceholder({ feature }: { feature: string }) {
  return (
    <PublicLayout>
      <Typography variant="h4" component="h1" gutterBottom>
        {feature}
      </Typography>
      <Typography sx={{ mb: 2 }}>{feature} is coming in a later release.</Typography>
      <Button variant="contained" component={RouterLink} to="/">
        Back to the home page
      </Button>
    </PublicLayout>
  );
}

/**
 * PublicFallback renders a logged-out path with no page of its own: the About page for authenticated routes
 * (spec part 1 §2), a placeholder for later public pages, else a not-found page.
 */
export function PublicFallback() {
  const { pathname } = useLocation();
  if (isProtectedPath(pathname)) return <AboutPage />;
  const feature = publicFeatureFor(pathname);
  if (feature) return <PublicPlaceholder feature={feature} />;
  return (
    <PublicLayout>
      <Typography variant="h4" component="h1" gutterBottom>
        Page not found
      </Typography>
      <Typography sx={{ mb: 2 }}>There is no page at {pathname}.</Typography>
      <Button variant="contained" component={RouterLink} to="/">
        Back to the home page
      </Button>
    </PublicLayout>
  );
}
