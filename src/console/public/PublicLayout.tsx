/**
 * The public site's frame (spec part 1 §2 Public pages): a top bar with the main links, then the page, then a footer.
 * Plain elements styled by site.css: it is in the entry bundle of every public page, which must stay small
 * (JavaScript for / under 150 kB gzip), so it uses no component library.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { FREE_EMAILS_PER_MONTH } from '../../domain/pricing';
import { useSession } from '../session';
import './site.css';

const SITE_LINKS: Array<[string, string]> = [
  ['/pricing', 'Pricing'],
  ['/blog', 'Blog'],
  ['/about', 'About'],
];

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
          {SITE_LINKS.map(([to, label]) => (
            <Link key={to} to={to} className="mw-navlink mw-wide-only">
              {label}
            </Link>
          ))}
          {/* On a phone the site links fold into a menu so the bar stays one line. */}
          <details className="mw-menu">
            <summary className="mw-navlink">Menu</summary>
            <div className="mw-menu-list">
              {SITE_LINKS.map(([to, label]) => (
                <Link key={to} to={to} className="mw-navlink" onClick={(e) => e.currentTarget.closest('details')?.removeAttribute('open')}>
                  {label}
                </Link>
              ))}
            </div>
          </details>
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
