/**
 * The public site's frame (spec part 1 §2 Public pages): a top bar with the main links, then the page, then a footer.
 * Plain elements styled by site.css: it is in the entry bundle of every public page, which must stay small (issue 7
 * §9: JavaScript for / under 150 kB gzip), so it uses no component library.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { FREE_EMAILS_PER_MONTH } from '../../domain/pricing';
import { useSession } from '../session';
import './site.css';

const FOOTER_LINKS: Array<[string, string]> = [
  ['/about', 'About'],
  ['/contact-us', 'Contact us'],
  ['/testimonials', 'Accolades and partnerships'],
  ['/blog', 'Blog'],
  ['/demo-login', 'Try the demo'],
  ['/pricing', 'Pricing'],
];

/** PublicLayout wraps a public page with the site's top bar and footer. */
export function PublicLayout({ children }: { children: ReactNode }) {
  const session = useSession();
  return (
    <div className="mw-site">
      <header className="mw-header">
        <nav className="mw-nav" aria-label="Site">
          <Link to="/" className="mw-brand">
            Mailwright
          </Link>
          <Link to="/pricing" className="mw-navlink">
            Pricing
          </Link>
          <Link to="/blog" className="mw-navlink">
            Blog
          </Link>
          <Link to="/about" className="mw-navlink">
            About
          </Link>
          {session ? (
            <Link to="/insights" className="mw-navlink">
              Console
            </Link>
          ) : (
            <>
              <Link to="/login" className="mw-navlink">
                Log in
              </Link>
              <Link to="/signup" className="mw-navlink mw-outlined">
                Sign up
              </Link>
            </>
          )}
        </nav>
      </header>
      <main className="mw-main">{children}</main>
      <footer className="mw-footer">
        <nav aria-label="Footer">
          {FOOTER_LINKS.map(([to, label]) => (
            <Link key={to} to={to}>
              {label}
            </Link>
          ))}
        </nav>
        Mailwright: pay-as-you-go email. The first {FREE_EMAILS_PER_MONTH.toLocaleString('en-US')} emails a month are free.
      </footer>
    </div>
  );
}
