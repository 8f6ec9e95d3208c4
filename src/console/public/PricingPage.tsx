/**
 * /pricing (spec part 1 §2, §9): three plan cards (Starter, Professional, Enterprise), each with the
 * rounded-up monthly price of the cheapest tier at that plan's volume; the shared feature list; a cost slider over
 * fixed email counts; and the table of the three tier calculations at the comparison volumes with the lowest
 * highlighted. Selecting a card sets the chosen plan (default Professional; a valid ?plan= preselects it) and the
 * sign-up button carries it to /signup?plan=. Every number comes from src/domain/pricing.ts.
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

const count = (n: number) => n.toLocaleString('en-US');
// In cents, as an invoice shows money ("$6.075" read as a mistake). A tier's cost can end in half a cent;
// it is rounded up to the cent, never down, so the page never promises less than the bill.
const dollars = (n: number) =>
  `$${(Math.ceil(Math.round(n * 1000) / 10) / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const tierName = (i: number) => {
  const t = PRICING_TIERS[i];
  return `$${t.perMonthDollars} + ${t.perThousandEmailsCents}¢ per 1,000`;
};

/** PricingPage is the public pricing page. */
export function PricingPage() {
  const [params] = useSearchParams();
  const asked = params.get('plan');
  const [plan, setPlan] = useState<PlanName>(PLANS.some((p) => p.name === asked) ? (asked as PlanName) : DEFAULT_PLAN);
  const [sliderIndex, setSliderIndex] = useState(SLIDER_VOLUMES.indexOf(100_000));
  const sliderQuote = quote(SLIDER_VOLUMES[sliderIndex]);
  const table = useMemo(() => COMPARISON_VOLUMES.map(quote), []);

  return (
    <PublicLayout>
      <Typography variant="h3" component="h1" gutterBottom>
        Pricing
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        Usage-based: you pay for the emails you send, and the first {count(FREE_EMAILS_PER_MONTH)} every month are free. Each price is the cheapest of our three
        rates at that volume.
      </Typography>

      <Box role="radiogroup" aria-label="Plan" sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fit, minmax(220px, 1fr))', mb: 2 }}>
        {PLANS.map((p) => {
          const selected = p.name === plan;
          return (
            <Card key={p.name} variant="outlined" sx={{ borderColor: selected ? 'primary.main' : undefined, borderWidth: selected ? 2 : 1 }}>
              <CardActionArea role="radio" aria-checked={selected} aria-label={p.name} onClick={() => setPlan(p.name)} sx={{ height: '100%' }}>
                <CardContent>
                  <Typography variant="h5" component="h2">
                    {p.name}
                  </Typography>
                  <Typography variant="h4" component="p" data-testid={`price-${p.name}`} sx={{ my: 1 }}>
                    ${count(quote(p.emailsPerMonth).monthlyDollars)}
                    <Typography component="span" color="text.secondary">
                      {' '}
                      / month
                    </Typography>
                  </Typography>
                  <Typography color="text.secondary">
                    {p.emailsPerMonth === FREE_EMAILS_PER_MONTH
                      ? `Free up to ${count(p.emailsPerMonth)} emails a month`
                      : `Up to ${count(p.emailsPerMonth)} emails a month`}
                  </Typography>
                </CardContent>
              </CardActionArea>
            </Card>
          );
        })}
      </Box>
      <Button variant="contained" size="large" component={RouterLink} to={`/signup?plan=${encodeURIComponent(plan)}`} sx={{ mb: 4 }}>
        Sign up for {plan}
      </Button>

      <Typography variant="h5" component="h2" gutterBottom>
        Every plan includes
      </Typography>
      <List dense aria-label="Features" sx={{ mb: 3 }}>
        {FEATURES.map((f) => (
          <ListItem key={f} disableGutters>
            <ListItemIcon sx={{ minWidth: 32 }}>
              <CheckIcon color="success" fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={f} />
          </ListItem>
        ))}
      </List>

      <Typography variant="h5" component="h2" gutterBottom id="cost-slider-label">
        What would my month cost?
      </Typography>
      {/* Room at both ends for the end marks' labels, which are centred on their marks. */}
      <Box sx={{ px: { xs: 5, sm: 2 }, maxWidth: 720 }}>
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
      <Typography aria-live="polite" data-testid="slider-quote" sx={{ mb: 4 }}>
        {count(sliderQuote.emails)} emails a month: {dollars(sliderQuote.costs[sliderQuote.cheapestTier])} ({tierName(sliderQuote.cheapestTier)})
      </Typography>

      <Typography variant="h5" component="h2" gutterBottom>
        The three rates compared
      </Typography>
      <TableContainer sx={{ mb: 4 }}>
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
                      sx={lowest ? { fontWeight: 700, bgcolor: '#e8f5e9', color: '#1b5e20' } : undefined}
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
    </PublicLayout>
  );
}
