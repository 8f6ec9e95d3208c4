/**
 * SwaggerDoc renders an OpenAPI document with swagger-ui-react (spec part 1 §2 /blog: the Make API-spec post embeds
 * /docs/make_integration.yml, the API documentation post /docs/api.yml). Only ApiSpec.tsx imports it, and
 * lazily, so swagger-ui (and its CSS) are fetched only by those two posts; its chunk is named after this file. It
 * fetches nothing but `url`, from this site: the BaseLayout has no online validator badge, and the CSS has no fonts.
 *
 * Accessibility fixes, since the post's page is checked with axe: swagger-ui's own info block (an h1, which would be
 * the page's second, and low-contrast version stamps) is replaced by a plain one under the post's h2; the controls it
 * renders without a name are named once they appear (nameControls); and swagger-overrides.css darkens its colours.
 */
import { useEffect, useRef, type ComponentType } from 'react';
import SwaggerUI from 'swagger-ui-react';
import 'swagger-ui-react/swagger-ui.css';
import './swagger-overrides.css';

/** The parts of swagger-ui's plugin system the info block uses (Immutable maps are read with get). */
interface SwaggerSystem {
  specSelectors: { info(): { get(key: string): unknown } | undefined };
  getComponent(name: string, container?: boolean): ComponentType<{ source: string }>;
}

/** infoPlugin replaces swagger-ui's info block (title as h1, version stamps) with the title, version and description. */
const infoPlugin = () => ({
  wrapComponents: {
    InfoContainer: (_original: unknown, system: SwaggerSystem) =>
      function Info() {
        const info = system.specSelectors.info();
        const Markdown = system.getComponent('Markdown', true);
        if (!info) return null;
        const description = info.get('description');
        return (
          <div className="information-container wrapper">
            <div className="info">
              <p className="mw-swagger-title">
                <strong>{String(info.get('title') ?? '')}</strong>, version {String(info.get('version') ?? '')}
              </p>
              {typeof description === 'string' && (
                <div className="info__description description">
                  <Markdown source={description} />
                </div>
              )}
            </div>
          </div>
        );
      },
  },
});

const PLUGINS = [infoPlugin];

/**
 * nameControls fixes, under `root`, what swagger-ui renders without an accessible name or with a mismatched one: the
 * server picker, the request-body editor, the dialog's close button and its Authorize button (named "Apply
 * credentials" while it reads "Authorize"); and its <main> of operations, which would be the page's second main.
 */
function nameControls(root: HTMLElement) {
  const name = (selector: string, label: string) => root.querySelectorAll(`${selector}:not([aria-label])`).forEach((e) => e.setAttribute('aria-label', label));
  name('.servers select', 'Server');
  name('textarea.body-param__text', 'Request body');
  name('button.close-modal', 'Close');
  root.querySelectorAll('.auth-btn-wrapper button[aria-label="Apply credentials"]').forEach((b) => b.removeAttribute('aria-label'));
  root.querySelectorAll('main:not([role])').forEach((m) => {
    m.setAttribute('role', 'region');
    m.setAttribute('aria-label', 'Operations');
  });
}

/** SwaggerDoc shows the document at `url` (a same-origin path), operations listed and collapsed. */
export function SwaggerDoc({ url }: { url: string }) {
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = root.current;
    if (!element) return;
    nameControls(element);
    const observer = new MutationObserver(() => nameControls(element));
    observer.observe(element, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  return (
    <div className="mw-swagger" ref={root}>
      <SwaggerUI url={url} plugins={PLUGINS} docExpansion="list" defaultModelsExpandDepth={0} deepLinking={false} queryConfigEnabled={false} />
    </div>
  );
}
