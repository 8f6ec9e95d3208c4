/** The public home page (spec part 1 §2 "/" when logged out): hero, why-cards and calls to action. */
import { Link as RouterLink } from 'react-router-dom';
import { Box, Button, Card, CardContent, Stack, Typography } from '@mui/material';
import { PublicLayout } from './PublicLayout';
import { FREE_EMAILS_PER_MONTH } from '../../domain/pricing';

const CARDS = [
  { title: 'Usage-based cost', text: `Pay for what you send. The first ${FREE_EMAILS_PER_MONTH.toLocaleString('en-US')} emails a month are free; no charge for contacts, seats or logo removal.` },
  { title: 'Segmentation', text: 'Group contacts by hand, by file or by filters on their data and activity.' },
  { title: 'Contact maintenance', text: 'Upload contacts in bulk, keep metadata per contact and honour unsubscribes automatically.' },
  { title: 'Timezone targeting', text: 'Send at a time in your zone, another zone, or each receiver’s own zone.' },
  { title: 'See what was sent', text: 'An exact copy of every sent email is stored so you can see what each contact received.' },
];

/** HomePage is the logged-out landing page with links to log in and to pricing. */
export function HomePage() {
  return (
    <PublicLayout>
      <Box component="section" sx={{ textAlign: 'center', py: 6 }}>
        <Typography variant="h3" component="h1" gutterBottom>
          Email marketing and transactional email, priced by the send
        </Typography>
        <Typography variant="h6" color="text.secondary" sx={{ mb: 3 }}>
          Templates, scheduled blasts, drip workflows and event-triggered campaigns in one console.
        </Typography>
        <Stack direction="row" spacing={2} sx={{ justifyContent: 'center' }}>
          <Button variant="contained" size="large" component={RouterLink} to="/login">
            Log in
          </Button>
          <Button variant="outlined" size="large" component={RouterLink} to="/pricing">
            See pricing
          </Button>
        </Stack>
      </Box>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(220px, 1fr))' }}>
        {CARDS.map((c) => (
          <Card key={c.title} variant="outlined">
            <CardContent>
              <Typography variant="h6" component="h2" gutterBottom>
                {c.title}
              </Typography>
              <Typography color="text.secondary">{c.text}</Typography>
            </CardContent>
          </Card>
        ))}
      </Box>
      <Box sx={{ textAlign: 'center', mt: 6 }}>
        <Typography variant="h5" component="h2" gutterBottom>
          Ready to send?
        </Typography>
        <Button variant="contained" component={RouterLink} to="/signup">
          Sign up
        </Button>
      </Box>
    </PublicLayout>
  );
}
