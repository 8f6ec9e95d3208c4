/**
 * The self-hosted drag-and-drop designer (GrapesJS with grapesjs-preset-newsletter) behind the EmailDesigner
 * interface: the fallback when Unlayer cannot load, and the designer of templates whose HTML was
 * imported. It needs no network: the icon-font CDN request is turned off (`cssIcons: ''`), nothing is stored in the
 * browser (`storageManager: false`), and the blocks whose placeholders load remote images are left out. About 400 kB
 * gzip (STACK-NOTES), so this module is only ever imported lazily, by the template editor.
 */
import { useEffect, useRef } from 'react';
import grapesjs, { type Editor } from 'grapesjs';
import 'grapesjs/dist/css/grapes.min.css';
import newsletterModule from 'grapesjs-preset-newsletter';
import { emailDocument, type DesignerProps, type EmailDesigner } from './EmailDesigner';

// The preset is a UMD bundle whose CommonJS exports are {default: plugin}; bundlers hand over either shape.
const newsletter = (newsletterModule as unknown as { default?: typeof newsletterModule }).default ?? newsletterModule;

/** The preset's blocks, less 'grid-items' and 'list-items' (their placeholder images come from a remote host). */
const BLOCKS = ['sect100', 'sect50', 'sect30', 'sect37', 'button', 'divider', 'text', 'text-sect', 'image', 'quote', 'link', 'link-block'];

/** GrapesDesigner mounts GrapesJS into its own box, loads `design` (or imports `html`) once, and reports ready. */
export default function GrapesDesigner({ design, html, onReady, onChange, uploadImage }: DesignerProps) {
  const box = useRef<HTMLDivElement>(null);
  const callbacks = useRef({ onReady, onChange, uploadImage });
  callbacks.current = { onReady, onChange, uploadImage };

  useEffect(() => {
    const editor: Editor = grapesjs.init({
      container: box.current!,
      height: '640px',
      width: 'auto',
      storageManager: false,
      cssIcons: '',
      // GrapesJS reports usage to app.grapesjs.com unless told not to; the product sends nothing anywhere.
      telemetry: false,
      plugins: [(e) => newsletter(e, { blocks: BLOCKS, inlineCss: true, showStylesOnChange: true })],
      assetManager: {
        upload: false,
        // Images picked or dropped in the asset manager go through the product's upload URL (spec part 2 §7).
        uploadFile: async (ev: DragEvent | Event) => {
          const files = (ev as DragEvent).dataTransfer?.files ?? (ev.target as HTMLInputElement | null)?.files;
          for (const file of Array.from(files ?? [])) {
            try {
              const src = await callbacks.current.uploadImage(file);
              editor.AssetManager.add({ src, name: file.name });
            } catch {
              // uploadImage has already told the user why.
            }
          }
        },
      },
      ...(design ? { projectData: design as never } : { components: html }),
    });
    let ready = false;
    editor.onReady(() => {
      ready = true;
      // GrapesJS leaves its canvas frame untitled and its side panel unreachable by keyboard: name the one, make the
      // other focusable (axe: frame-title, scrollable-region-focusable).
      editor.Canvas.getFrameEl()?.setAttribute('title', 'Email design canvas');
      const panel = editor.getContainer()?.querySelector('.gjs-pn-views-container');
      panel?.setAttribute('tabindex', '0');
      panel?.setAttribute('aria-label', 'Designer settings panel');
      const designer: EmailDesigner = {
        kind: 'grapesjs',
        exportHtml: async () => ({
          html: emailDocument(String(editor.runCommand('gjs-get-inlined-html'))),
          design: { designer: 'grapesjs', design: editor.getProjectData() },
        }),
      };
      callbacks.current.onReady(designer);
    });
    editor.on('update', () => {
      if (ready) callbacks.current.onChange();
    });
    return () => editor.destroy();
  }, []); // eslint-disable-line react-hooks/exhaustive-deps -- the design is loaded once (spec part 2 §4)

  return <div ref={box} data-testid="grapesjs-designer" style={{ border: '1px solid rgba(0,0,0,0.12)', borderRadius: 4, overflow: 'hidden' }} />;
}
