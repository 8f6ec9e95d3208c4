/** The frame of the service's own public pages (unsubscribe, verification, subscribe forms): plain HTML, no script. */
import { escapeUTF8 as escapeHtml } from 'entities';

/** page wraps `body` (HTML) in the public pages' frame with `title` as its heading and title: unsubscribe, verification, subscribe forms. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:48px 16px;color:#1d2129}
main{max-width:480px;margin:auto;background:#fff;border-radius:8px;padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
button{font:inherit;background:#4b2fd0;color:#fff;border:0;border-radius:4px;padding:10px 20px;cursor:pointer}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}
