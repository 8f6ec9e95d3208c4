/** The public about page (spec part 1 §2); also shown for any authenticated route while logged out. */
import { Link as RouterLink } from 'react-router-dom';
import { Button, Link, Stack, Typography } from '@mui/material';
import { pageTitle, usePageMeta } from './pageMeta';
import { PublicLayout } from './PublicLayout';

/** AboutPage describes the product and links to log in. */
export function AboutPage() {
  usePageMeta(
    pageTitle('About'),
    'Mailwright is a pay-as-you-go email service: contacts, segments, templates, scheduled blasts, workflows and honest reports, with an exact copy of every email.',
  );
  return (
    <PublicLayout>
      <Typography variant="h4" component="h1" gutterBottom>
        About Mailwright
      </Typography>
      <Typography sx={{ mb: 2 }}>
        Mailwright is a pay-as-you-go email service provider. Companies use it to manage contacts, segments, sender personas and templates, schedule email
        blasts, run drip workflows and event-triggered campaigns, and read reports on what was sent, opened and clicked.
      </Typography>
      <Typography sx={{ mb: 2 }}>
        Pricing is usage-based and prorated on actual sends with no markup. An exact copy of every sent email is kept so you can always see what went out, and
        sends can follow each receiver’s own timezone.
      </Typography>
      <Typography sx={{ mb: 3 }}>
        Already have an account?{' '}
        <Link component={RouterLink} to="/login">
          Log in
        </Link>{' '}
        to open the console.
      </Typography>
      <Stack direction="row" spacing={2} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <Button variant="contained" component={RouterLink} to="/signup">
          Start free
        </Button>
        <Button variant="outlined" component={RouterLink} to="/demo-login">
          Try the demo
        </Button>
        <Button variant="outlined" component={RouterLink} to="/about/contact-us">
          Contact us
        </Button>
      </Stack>
    </PublicLayout>
  );
}
