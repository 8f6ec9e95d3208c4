/**
 * /pricing (spec part 1 §2, §9): three plan cards (Starter, Professional, Enterprise), each with the
 * rounded-up monthly price of the cheapest tier at that plan's volume, that cost exactly and the rate it comes from; the
 * shared feature list; a cost slider over fixed email counts; the table of the three tier calculations at the comparison
 * volumes with the lowest highlighted; and what counts as an email. Selecting a card sets the chosen plan (default
 * Professional; a valid ?plan= preselects it) and the sign-up button carries it to /signup?plan=. Every number comes
 * from src/domain/pricing.ts through pricingCards.ts.
 */
import { useMemo, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import {
  Box,
  Button,
  Card,
  CardActionArea,
  CardContent,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  Slider,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import CheckIcon from '@mui/icons-material/Check';
import { DEFAULT_PLAN, FREE_EMAILS_PER_MONTH, PLANS, PRICING_TIERS, COMPARISON_VOLUMES, quote, type PlanName } from '../../domain/pricing';
import { pageTitle, usePageMeta } from './pageMeta';
import { count, dollars, planCards, tierName } from './pricingCards';
import { PublicLayout } from './PublicLayout';

/** The email counts the slider offers (only these: spec part 1 §2 "The slider offers only fixed email counts"). */
export const SLIDER_VOLUMES = [10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000];

const FEATURES = [
  `${FREE_EMAILS_PER_MONTH.toLocaleString('en-US')} emails a month free`,
  'No charge for contact storage, seats or logo removal',
  'Segments, sender personas, templates and scheduled blasts',
  'Drip and event-triggered workflows',
  'Sends at a time in each receiver’s own time zone',
  'Open, click, bounce, complaint and unsubscribe tracking',
  'An exact copy of every sent email',
  'The events API',
];

/** Read by screen readers, not shown (the highlight says it to sighted users). */
const VISUALLY_HIDDEN = {
  border: 0,
  clip: 'rect(0 0 0 0)',
  height: '1px',
  width: '1px',
  margin: '-1px',
  overflow: 'hidden',
  padding: 0,
  position: 'absolute',
  whiteSpace: 'nowrap',
} as const;

/** What counts, in plain words (every figure from src/domain/pricing.ts). */
const QUESTIONS: Array<{ q: string; a: string }> = [
  {
    q: 'What counts as an email?',
    a: 'One message to one recipient. A blast to 2,000 contacts is 2,000 emails. Test emails you send to yourself from the console are not counted.',
  },
  {
    q: 'How is my month billed?',
    a: `Your month’s total is worked out under each of the three rates and you pay the lowest. The first ${count(FREE_EMAILS_PER_MONTH)} emails are free under every rate.`,
  },
  {
    q: 'Do contacts, seats or our logo cost extra?',
    a: 'No. Store as many contacts as you like, invite your team, and send without our logo in your emails.',
  },
];

/** PricingPage is the public pricing page. */
export function PricingPage() {
  usePageMeta(
    pageTitle('Pricing'),
    `Pay for the emails you send: the first ${count(FREE_EMAILS_PER_MONTH)} every month are free, then the cheapest of three rates. No charge for contacts or seats.`,
  );
  const [params] = useSearchParams();
  const asked = params.get('plan');
  const [plan, setPlan] = useState<PlanName>(PLANS.some((p) => p.name === asked) ? (asked as PlanName) : DEFAULT_PLAN);
  const [sliderIndex, setSliderIndex] = useState(SLIDER_VOLUMES.indexOf(100_000));
  const sliderQuote = quote(SLIDER_VOLUMES[sliderIndex]);
  const table = useMemo(() => COMPARISON_VOLUMES.map(quote), []);
  const cards = useMemo(planCards, []);

  return (
    <PublicLayout>
      <Box sx={{ textAlign: { md: 'center' }, maxWidth: 760, mx: { md: 'auto' }, mb: 4 }}>
        <Typography variant="h3" component="h1" gutterBottom>
          Pricing
        </Typography>
        <Typography color="text.secondary" sx={{ fontSize: '1.125rem' }}>
          Usage-based: you pay for the emails you send, and the first {count(FREE_EMAILS_PER_MONTH)} every month are free. Each price is the cheapest of our
          three rates at that volume.
        </Typography>
      </Box>

      <Box role="radiogroup" aria-label="Plan" sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(240px, 1fr))', mb: 3 }}>
        {cards.map((c) => {
          const selected = c.name === plan;
          return (
            <Card
              key={c.name}
              variant="outlined"
              sx={{
                borderColor: selected ? 'primary.main' : undefined,
                borderWidth: 2,
                borderRadius: '18px',
                boxShadow: selected ? '0 12px 32px rgba(75, 47, 208, 0.16)' : 'none',
              }}
            >
              {/* Named by its content, which starts with the plan's name: what a screen reader says is what the card shows. */}
              <CardActionArea role="radio" aria-checked={selected} onClick={() => setPlan(c.name)} sx={{ height: '100%' }}>
                <CardContent sx={{ p: 3 }}>
                  <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center' }}>
                    <Typography variant="h5" component="h2">
                      {c.name}
                    </Typography>
                    <Box
                      aria-hidden="true"
                      sx={{
                        width: 20,
                        height: 20,
                        borderRadius: '50%',
                        border: 2,
                        borderColor: selected ? 'primary.main' : '#b9b4cc',
                        boxShadow: selected ? 'inset 0 0 0 4px #fff' : 'none',
                        bgcolor: selected ? 'primary.main' : 'transparent',
                      }}
                    />
                  </Box>
                  <Typography variant="h3" component="p" data-testid={`price-${c.name}`} sx={{ my: 1.5 }}>
                    ${count(c.monthlyDollars)}
                    <Typography component="span" color="text.secondary" sx={{ fontSize: '1rem', fontWeight: 400, letterSpacing: 0 }}>
                      {' '}
                      / month
                    </Typography>
                  </Typography>
                  <Typography sx={{ fontWeight: 600 }}>{c.volume}</Typography>
                  <Typography variant="body2" color="text.secondary" data-testid={`price-detail-${c.name}`} sx={{ mt: 1 }}>
                    {c.exactCost} a month at {count(c.emails)} emails, on the {c.tierName} rate
                  </Typography>
                </CardContent>
              </CardActionArea>
            </Card>
          );
        })}
      </Box>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2, mb: 6 }}>
        <Button variant="contained" size="large" component={RouterLink} to={`/signup?plan=${encodeURIComponent(plan)}`} sx={{ px: 4 }}>
          Sign up for {plan}
        </Button>
        <Typography variant="body2" color="text.secondary">
          Card prices are the month’s cost rounded up to the whole dollar; the exact cost is under each price.
        </Typography>
      </Box>

      <Box sx={{ display: 'grid', gap: 4, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, mb: 6 }}>
        <Box>
          <Typography variant="h5" component="h2" gutterBottom>
            Every plan includes
          </Typography>
          <List dense aria-label="Features">
            {FEATURES.map((f) => (
              <ListItem key={f} disableGutters>
                <ListItemIcon sx={{ minWidth: 32 }}>
                  <CheckIcon color="primary" fontSize="small" />
                </ListItemIcon>
                <ListItemText primary={f} />
              </ListItem>
            ))}
          </List>
        </Box>
        <Card variant="outlined" sx={{ borderRadius: '18px', alignSelf: 'start' }}>
          <CardContent sx={{ p: 3 }}>
            <Typography variant="h5" component="h2" gutterBottom id="cost-slider-label">
              What would my month cost?
            </Typography>
            {/* Room at both ends for the end marks' labels, which are centred on their marks. */}
            <Box sx={{ px: { xs: 4, sm: 3 } }}>
              <Slider
                aria-labelledby="cost-slider-label"
                value={sliderIndex}
                min={0}
                max={SLIDER_VOLUMES.length - 1}
                step={1}
                marks={SLIDER_VOLUMES.map((v, i) => ({ value: i, label: i === 0 || i === SLIDER_VOLUMES.length - 1 ? count(v) : undefined }))}
                onChange={(_e, v) => setSliderIndex(v as number)}
                valueLabelDisplay="auto"
                valueLabelFormat={(i) => `${count(SLIDER_VOLUMES[i])} emails`}
                getAriaValueText={(i) => `${count(SLIDER_VOLUMES[i])} emails a month`}
              />
            </Box>
            <Typography aria-live="polite" data-testid="slider-quote" sx={{ mt: 1, fontSize: '1.125rem', fontWeight: 600 }}>
              {count(sliderQuote.emails)} emails a month: {dollars(sliderQuote.costs[sliderQuote.cheapestTier])} ({tierName(sliderQuote.cheapestTier)})
            </Typography>
          </CardContent>
        </Card>
      </Box>

      <Typography variant="h5" component="h2" gutterBottom>
        The three rates compared
      </Typography>
      <TableContainer sx={{ mb: 6, border: 1, borderColor: 'divider', borderRadius: 3 }}>
        {/* On a phone the four columns fit the screen: tighter cells, smaller figures. */}
        <Table size="small" aria-label="Rates compared" sx={{ '& .MuiTableCell-root': { px: { xs: 0.5, sm: 2 }, fontSize: { xs: '0.8rem', sm: '0.875rem' } } }}>
          <TableHead>
            <TableRow>
              <TableCell>Emails a month</TableCell>
              {PRICING_TIERS.map((_t, i) => (
                <TableCell key={i} align="right">
                  {tierName(i)}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {table.map((q) => (
              <TableRow key={q.emails}>
                <TableCell component="th" scope="row">
                  {count(q.emails)}
                </TableCell>
                {q.costs.map((c, i) => {
                  const lowest = i === q.cheapestTier;
                  return (
                    <TableCell
                      key={i}
                      align="right"
                      aria-current={lowest ? 'true' : undefined}
                      sx={lowest ? { fontWeight: 700, bgcolor: '#f3f0ff', color: '#3a22a8' } : undefined}
                    >
                      {dollars(c)}
                      {lowest ? (
                        <Box component="span" sx={VISUALLY_HIDDEN}>
                          {' '}
                          (lowest)
                        </Box>
                      ) : null}
                    </TableCell>
                  );
                })}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>

      <Typography variant="h5" component="h2" gutterBottom>
        Questions
      </Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 280px), 1fr))' }}>
        {QUESTIONS.map(({ q, a }) => (
          <Box key={q}>
            <Typography variant="h6" component="h3" gutterBottom>
              {q}
            </Typography>
            <Typography color="text.secondary">{a}</Typography>
          </Box>
        ))}
      </Box>
    </PublicLayout>
  );
}
