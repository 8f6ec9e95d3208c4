/** The public site's two calls to action, "Start free" (sign-up) and "Try the demo", as plain links styled by site.css. */
import { Link } from 'react-router-dom';

/** StartActions renders the pair; `className` adds the container's own spacing. */
export function StartActions({ className }: { className?: string }) {
  return (
    <div className={className ? `mw-actions ${className}` : 'mw-actions'}>
      <Link to="/signup" className="mw-button mw-contained mw-large">
        Start free
      </Link>
      <Link to="/demo-login" className="mw-button mw-outlined mw-large">
        Try the demo
      </Link>
    </div>
  );
}
