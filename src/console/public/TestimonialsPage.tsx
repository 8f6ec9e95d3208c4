/**
 * /testimonials, labelled 'Accolades and partnerships' (spec part 1 §2): what customers value and whom the
 * product is built with. Static content.
 */
import { Box, Card, CardContent, Typography } from '@mui/material';
import { PublicLayout } from './PublicLayout';

const QUOTES = [
  {
    quote: 'We moved our weekly newsletter and our receipts to one account, and the bill went down because we only pay for what we send.',
    who: 'Head of growth, an online bookshop',
  },
  {
    quote: 'Sending at nine in the morning in each reader’s own time zone lifted our opens more than any subject-line test.',
    who: 'Marketing lead, a travel start-up',
  },
  {
    quote: 'Support asked for our expected volume, activated us the same day, and the events API had our drip campaign running by the afternoon.',
    who: 'CTO, a SaaS company',
  },
];

const PARTNERS = [
  { name: 'Automation platforms', text: 'Connect the product to two automation platforms (the second by invitation) with your project’s integration keys.' },
  { name: 'Email authentication', text: 'DKIM signing for your verified sending domains, and one-click unsubscribe headers that mailbox providers expect.' },
  { name: 'Open source', text: 'Built on PostgreSQL, Node.js and well-kept open-source libraries, and runs on one machine when you self-host.' },
];

/** TestimonialsPage shows customer quotes and partnerships. */
export function TestimonialsPage() {
  return (
    <PublicLayout>
      <Typography variant="h4" component="h1" gutterBottom>
        Accolades and partnerships
      </Typography>
      <Typography variant="h5" component="h2" sx={{ mt: 3, mb: 2 }}>
        What customers say
      </Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(260px, 1fr))' }}>
        {QUOTES.map((q) => (
          <Card key={q.who} variant="outlined" component="figure" sx={{ m: 0 }}>
            <CardContent>
              <Typography component="blockquote" sx={{ m: 0, mb: 1 }}>
                “{q.quote}”
              </Typography>
              <Typography component="figcaption" color="text.secondary">
                — {q.who}
              </Typography>
            </CardContent>
          </Card>
        ))}
      </Box>
      <Typography variant="h5" component="h2" sx={{ mt: 4, mb: 2 }}>
        Partnerships
      </Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(260px, 1fr))' }}>
        {PARTNERS.map((p) => (
          <Card key={p.name} variant="outlined">
            <CardContent>
              <Typography variant="h6" component="h3" gutterBottom>
                {p.name}
              </Typography>
              <Typography color="text.secondary">{p.text}</Typography>
            </CardContent>
          </Card>
        ))}
      </Box>
    </PublicLayout>
  );
}
