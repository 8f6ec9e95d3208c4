/**
 * The public pages' routes (spec part 1 §2 Public pages), shared by the logged-out site and the
 * console (where they render without the console frame). Every page but the home page is loaded when first opened, so
 * / ships only what it shows; the blog's API posts add swagger-ui-react only when they open.
 */
import { lazy, Suspense, type ComponentType, type ReactElement } from 'react';
import { Route } from 'react-router-dom';
import { plainPage } from './plainPage';

/**
 * page lazily loads a public page (export `name` of the module `load` imports) together with the public MUI theme, and
 * renders it inside that theme; the entry bundle carries neither.
 */
export function page<K extends string, P extends object = object>(load: () => Promise<Record<K, ComponentType<P>>>, name: K) {
  return lazy(async () => {
    const [module, { Themed }] = await Promise.all([load(), import('./Themed')]);
    const Page = module[name] as ComponentType<object>;
    return {
      default: (props: P) => (
        <Themed>
          <Page {...props} />
        </Themed>
      ),
    };
  });
}

const AboutPage = page(() => import('./AboutPage'), 'AboutPage');
const PricingPage = plainPage(() => import('./PricingPage'), 'PricingPage');
const DealMirrorPage = page(() => import('./DealMirrorPage'), 'DealMirrorPage');
const SignupPage = page(() => import('./SignupPage'), 'SignupPage');
const DemoLoginPage = page(() => import('./DemoLoginPage'), 'DemoLoginPage');
const WaitingPage = page(() => import('./WaitingPage'), 'WaitingPage');
const TestimonialsPage = plainPage(() => import('./TestimonialsPage'), 'TestimonialsPage');
const ContactUsPage = page<'ContactUsPage', { variant?: 'site' | 'about' }>(() => import('./ContactUsPage'), 'ContactUsPage');
const ContactSentPage = page(() => import('./ContactUsPage'), 'ContactSentPage');
const BlogIndexPage = page(() => import('./blog/BlogIndexPage'), 'BlogIndexPage');
const BlogPostPage = page(() => import('./blog/BlogPostPage'), 'BlogPostPage');
const DocsIndexPage = page(() => import('./docs/DocsIndexPage'), 'DocsIndexPage');
const QuickStartPage = page(() => import('./docs/QuickStartPage'), 'QuickStartPage');
const ApiIndexPage = page(() => import('./docs/ApiReferencePage'), 'ApiIndexPage');
const ApiGatewayPage = page(() => import('./docs/ApiReferencePage'), 'ApiGatewayPage');
const ChangelogPage = page(() => import('./docs/ChangelogPage'), 'ChangelogPage');
const PrivacyPage = plainPage(() => import('./PrivacyPage'), 'PrivacyPage');
const TermsPage = plainPage(() => import('./TermsPage'), 'TermsPage');
const SecurityPage = plainPage(() => import('./SecurityPage'), 'SecurityPage');
const StatusPage = plainPage(() => import('./StatusPage'), 'StatusPage');

/**
 * PageLoading is the spinner shown while a page's code arrives: an SVG animated by itself (SMIL), so the entry bundle
 * carries no progress component for it.
 */
export function PageLoading() {
  return (
    <div className="mw-spinner">
      <svg width="40" height="40" viewBox="0 0 40 40" role="progressbar" aria-label="Loading">
        <circle cx="20" cy="20" r="16" fill="none" stroke="#4b2fd0" strokeWidth="4" strokeDasharray="70 40" strokeLinecap="round">
          <animateTransform attributeName="transform" type="rotate" from="0 20 20" to="360 20 20" dur="1s" repeatCount="indefinite" />
        </circle>
      </svg>
    </div>
  );
}

const wrap = (element: ReactElement) => <Suspense fallback={<PageLoading />}>{element}</Suspense>;

/** publicPageRoutes returns the <Route>s of the public pages other than /, /login and /logout. */
export function publicPageRoutes(): ReactElement[] {
  return [
    <Route key="about" path="/about" element={wrap(<AboutPage />)} />,
    <Route key="about-contact" path="/about/contact-us" element={wrap(<ContactUsPage variant="about" />)} />,
    <Route key="about-contact-2" path="/about/contact-us/2" element={wrap(<ContactSentPage />)} />,
    <Route key="contact" path="/contact-us" element={wrap(<ContactUsPage />)} />,
    <Route key="testimonials" path="/testimonials" element={wrap(<TestimonialsPage />)} />,
    <Route key="pricing" path="/pricing" element={wrap(<PricingPage />)} />,
    <Route key="deal-mirror" path="/deal-mirror" element={wrap(<DealMirrorPage />)} />,
    <Route key="signup" path="/signup" element={wrap(<SignupPage />)} />,
    <Route key="demo-login" path="/demo-login" element={wrap(<DemoLoginPage />)} />,
    <Route key="waiting" path="/waiting-for-architecture" element={wrap(<WaitingPage />)} />,
    <Route key="blog" path="/blog" element={wrap(<BlogIndexPage />)} />,
    <Route key="blog-post" path="/blog/:slug" element={wrap(<BlogPostPage />)} />,
    <Route key="docs" path="/docs" element={wrap(<DocsIndexPage />)} />,
    <Route key="docs-quick-start" path="/docs/quick-start/:slug" element={wrap(<QuickStartPage />)} />,
    <Route key="docs-api" path="/docs/api" element={wrap(<ApiIndexPage />)} />,
    <Route key="docs-api-gateway" path="/docs/api/:service" element={wrap(<ApiGatewayPage />)} />,
    <Route key="docs-changelog" path="/docs/changelog" element={wrap(<ChangelogPage />)} />,
    <Route key="privacy" path="/privacy" element={wrap(<PrivacyPage />)} />,
    <Route key="terms" path="/terms" element={wrap(<TermsPage />)} />,
    <Route key="security" path="/security" element={wrap(<SecurityPage />)} />,
    <Route key="status" path="/status" element={wrap(<StatusPage />)} />,
  ];
}
