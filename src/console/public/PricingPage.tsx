/**
 * /pricing (spec part 1 §2, §9): three plan cards (Starter, Professional, Enterprise), each with the
 * rounded-up monthly price of the cheapest tier at that plan's volume, that cost exactly and the rate it comes from; the
 * shared feature list; a cost slider over fixed email counts; the table of the three tier calculations at the comparison
 * volumes with the lowest highlighted; and what counts as an email. Selecting a card sets the chosen plan (default
 * Professional; a valid ?plan= preselects it) and the sign-up button carries it to /signup?plan=. Every number comes
 * from src/domain/pricing.ts through pricingCards.ts. Plain elements styled by site.css (a native range input for the
 * slider), so the page loads no component library and shows as fast as the home page.
 */
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { DEFAULT_PLAN, FREE_EMAILS_PER_MONTH, PLANS, PRICING_TIERS, COMPARISON_VOLUMES, quote, type PlanName } from '../../domain/pricing';
import { pageTitle, usePageMeta } from './pageMeta';
import { count, dollars, planCards, tierName } from './pricingCards';
import { PublicLayout } from './PublicLayout';

/** The email counts the slider offers (only these: spec part 1 §2 "The slider offers only fixed email counts"). */
export const SLIDER_VOLUMES = [10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000];

const FEATURES = [
  `${count(FREE_EMAILS_PER_MONTH)} emails a month free`,
  'No charge for contact storage, seats or logo removal',
  'Segments, sender personas, templates and scheduled blasts',
  'Drip and event-triggered workflows',
  'Sends at a time in each receiver’s own time zone',
  'Open, click, bounce, complaint and unsubscribe tracking',
  'An exact copy of every sent email',
  'The events API',
];

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
  const radios = useRef<Array<HTMLButtonElement | null>>([]);

  /** The radio group's arrow keys move the choice (and the focus) to the previous or next plan, wrapping round. */
  const onRadioKey = (e: KeyboardEvent, i: number) => {
    const step = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = (i + step + cards.length) % cards.length;
    setPlan(cards[next].name);
    radios.current[next]?.focus();
  };

  return (
    <PublicLayout>
      <div className="mw-pricing-head">
        <h1 className="mw-page-title">Pricing</h1>
        <p className="mw-lead">
          Usage-based: you pay for the emails you send, and the first {count(FREE_EMAILS_PER_MONTH)} every month are free. Each price is the cheapest of our
          three rates at that volume.
        </p>
      </div>

      <div role="radiogroup" aria-label="Plan" className="mw-plans">
        {cards.map((c, i) => {
          const selected = c.name === plan;
          return (
            <button
              key={c.name}
              ref={(el) => {
                radios.current[i] = el;
              }}
              type="button"
              role="radio"
              aria-checked={selected}
              tabIndex={selected ? 0 : -1}
              className="mw-plan"
              onClick={() => setPlan(c.name)}
              onKeyDown={(e) => onRadioKey(e, i)}
            >
              <span className="mw-plan-top">
                <span className="mw-plan-name">{c.name}</span>
                <span className="mw-plan-dot" aria-hidden="true" />
              </span>
              <span className="mw-plan-price" data-testid={`price-${c.name}`}>
                ${count(c.monthlyDollars)}
                <span className="mw-plan-per"> / month</span>
              </span>
              <span className="mw-plan-volume">{c.volume}</span>
              <span className="mw-plan-detail" data-testid={`price-detail-${c.name}`}>
                {c.exactCost} a month at {count(c.emails)} emails, on the {c.tierName} rate
              </span>
            </button>
          );
        })}
      </div>
      <div className="mw-plan-actions">
        <Link to={`/signup?plan=${encodeURIComponent(plan)}`} className="mw-button mw-contained mw-large">
          Sign up for {plan}
        </Link>
        <p>Card prices are the month’s cost rounded up to the whole dollar; the exact cost is under each price.</p>
      </div>

      <div className="mw-pricing-grid">
        <section aria-labelledby="features-heading">
          <h2 id="features-heading" className="mw-pricing-h2">
            Every plan includes
          </h2>
          <ul className="mw-checks mw-checks-single" aria-label="Features">
            {FEATURES.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
        </section>
        <section className="mw-calculator" aria-labelledby="cost-slider-label">
          <h2 className="mw-pricing-h2" id="cost-slider-label">
            What would my month cost?
          </h2>
          <input
            type="range"
            className="mw-range"
            aria-labelledby="cost-slider-label"
            min={0}
            max={SLIDER_VOLUMES.length - 1}
            step={1}
            value={sliderIndex}
            onChange={(e) => setSliderIndex(Number(e.target.value))}
            aria-valuetext={`${count(SLIDER_VOLUMES[sliderIndex])} emails a month`}
          />
          <div className="mw-range-ends" aria-hidden="true">
            <span>{count(SLIDER_VOLUMES[0])}</span>
            <span>{count(SLIDER_VOLUMES[SLIDER_VOLUMES.length - 1])}</span>
          </div>
          <p aria-live="polite" data-testid="slider-quote" className="mw-quote">
            {count(sliderQuote.emails)} emails a month: {dollars(sliderQuote.costs[sliderQuote.cheapestTier])} ({tierName(sliderQuote.cheapestTier)})
          </p>
        </section>
      </div>

      <h2 className="mw-pricing-h2">The three rates compared</h2>
      <div className="mw-table-box">
        <table className="mw-rates" aria-label="Rates compared">
          <thead>
            <tr>
              <th scope="col">Emails a month</th>
              {PRICING_TIERS.map((_t, i) => (
                <th key={i} scope="col">
                  {tierName(i)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.map((q) => (
              <tr key={q.emails}>
                <th scope="row">{count(q.emails)}</th>
                {q.costs.map((c, i) => {
                  const lowest = i === q.cheapestTier;
                  return (
                    <td key={i} aria-current={lowest ? 'true' : undefined} className={lowest ? 'mw-lowest' : undefined}>
                      {dollars(c)}
                      {/* Read by screen readers, not shown (the highlight says it to sighted users). */}
                      {lowest ? <span className="mw-visually-hidden"> (lowest)</span> : null}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2 className="mw-pricing-h2">Questions</h2>
      <div className="mw-questions">
        {QUESTIONS.map(({ q, a }) => (
          <div key={q}>
            <h3>{q}</h3>
            <p>{a}</p>
          </div>
        ))}
      </div>
    </PublicLayout>
  );
}
