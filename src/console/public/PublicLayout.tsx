/**
 * The public site's frame (spec part 1 §2 Public pages): a top bar with the brand and the main links, then the page,
 * then a footer of link columns. Plain elements styled by site.css: it is in the entry bundle of every public page,
 * which must stay small (JavaScript and CSS for / under 150 kB gzip), so it uses no component library.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { FREE_EMAILS_PER_MONTH } from '../../domain/pricing';
import { useSession } from '../session';
import { BRAND_COLOR, MARK_ENVELOPE, MARK_FLAP, MARK_FLAP_WIDTH, MARK_RADIUS } from './brand';
import { FOOTER_COLUMNS, SITE_LINKS } from './siteLinks';
import './site.css';

/** Mark is the brand's mark (src/console/public/brand.ts), drawn inline so the top bar needs no request for it. */
export function Mark({ size = 32 }: { size?: number }) {
  const e = MARK_ENVELOPE;
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true" focusable="false">
      <rect width="64" height="64" rx={MARK_RADIUS} fill={BRAND_COLOR} />
      <rect x={e.x} y={e.y} width={e.width} height={e.height} rx={e.rx} fill="#fff" />
      <polyline points={MARK_FLAP} fill="none" stroke={BRAND_COLOR} strokeWidth={MARK_FLAP_WIDTH} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/**
 * PublicLayout wraps a public page with the site's top bar and footer. `bare`: the page lays out its own full-width
 * bands (the home page); otherwise it sits in the site's centred column.
 */
export function PublicLayout({ children, bare = false }: { children: ReactNode; bare?: boolean }) {
  const session = useSession();
  return (
    <div className="mw-site">
      <a className="mw-skip" href="#main">
        Skip to content
      </a>
      <header className="mw-header">
        <nav className="mw-nav" aria-label="Site">
          <Link to="/" className="mw-brand" aria-label="Mailwright home">
            <Mark />
            <span className="mw-brand-name">Mailwright</span>
          </Link>
          <div className="mw-nav-links">
            {SITE_LINKS.map(([to, label]) => (
              <Link key={to} to={to} className="mw-navlink mw-wide-only">
                {label}
              </Link>
            ))}
          </div>
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
            <Link to="/insights" className="mw-navlink mw-nav-cta">
              Console
            </Link>
          ) : (
            <>
              <Link to="/login" className="mw-navlink">
                Log in
              </Link>
              <Link to="/signup" className="mw-navlink mw-nav-cta">
                Sign up
              </Link>
            </>
          )}
        </nav>
      </header>
      <main id="main" className={bare ? 'mw-main-bare' : 'mw-main'}>
        {children}
      </main>
      <footer className="mw-footer">
        <div className="mw-footer-inner">
          <div className="mw-footer-about">
            <Link to="/" className="mw-footer-brand" aria-label="Mailwright home">
              <Mark size={28} />
              <span>Mailwright</span>
            </Link>
            <p>
              Email marketing and transactional email, priced by the send. The first {FREE_EMAILS_PER_MONTH.toLocaleString('en-US')} emails every month are
              free.
            </p>
          </div>
          <nav className="mw-footer-columns" aria-label="Footer">
            {FOOTER_COLUMNS.map((column) => (
              <div key={column.heading} className="mw-footer-column">
                <h2 id={`footer-${column.heading.toLowerCase()}`}>{column.heading}</h2>
                <ul aria-labelledby={`footer-${column.heading.toLowerCase()}`}>
                  {column.links.map(([to, label]) => (
                    <li key={to}>
                      <Link to={to}>{label}</Link>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </nav>
        </div>
        <p className="mw-footer-base">© {new Date().getFullYear()} Mailwright</p>
      </footer>
    </div>
  );
}
