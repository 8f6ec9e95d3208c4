/**
 * Unlayer's designer (react-email-editor, designer version 1.157.0) behind the EmailDesigner interface.
 *
 * Unlayer loads a script and an iframe from its servers. Offline or blocked it shows an empty area, never fires
 * onReady and never reports why (STACK-NOTES), so readiness is checked here as spec part 2 §5 says — 40 tries at
 * 200 ms — and a capture-phase window `error` listener catches the script's own load failure at once. Either way
 * `onUnavailable` is called (once), the failed script tag is removed, and the rest of this page session goes straight
 * to the fallback instead of waiting again.
 */
import { useEffect, useRef } from 'react';
import EmailEditor, { type EditorRef } from 'react-email-editor';
import { markUnlayerUnavailable, unlayerUnavailable } from './unlayerState';
import { DEFAULT_UNLAYER_DESIGN, READINESS, UNLAYER_VERSION, emailDocument, type DesignerProps, type EmailDesigner } from './EmailDesigner';
import { UNLAYER_ORIGIN } from '../../../../domain/designers';

/** UnlayerDesigner mounts Unlayer's editor, loads `design` (or the default design) once, and reports readiness or failure. */
export default function UnlayerDesigner({ design, onReady, onChange, onUnavailable, uploadImage }: DesignerProps) {
  const ref = useRef<EditorRef>(null);
  const state = useRef<'waiting' | 'ready' | 'failed'>('waiting');
  const callbacks = useRef({ onReady, onChange, onUnavailable, uploadImage });
  callbacks.current = { onReady, onChange, onUnavailable, uploadImage };

  useEffect(() => {
    const fail = (reason: string) => {
      if (state.current !== 'waiting') return;
      state.current = 'failed';
      markUnlayerUnavailable(reason);
      document.querySelectorAll(`script[src^="${UNLAYER_ORIGIN}/"]`).forEach((s) => s.remove());
      callbacks.current.onUnavailable?.(reason);
    };
    const earlier = unlayerUnavailable();
    if (earlier) {
      fail(earlier);
      return;
    }
    const onError = (e: Event) => {
      const target = e.target;
      if (target instanceof HTMLScriptElement && target.src.startsWith(UNLAYER_ORIGIN))
        fail('The Unlayer designer could not be downloaded (offline or blocked)');
    };
    window.addEventListener('error', onError, true);
    let tries = 0;
    const timer = setInterval(() => {
      if (state.current !== 'waiting') return clearInterval(timer);
      if (++tries >= READINESS.tries) {
        clearInterval(timer);
        fail(`The Unlayer designer did not answer within ${(READINESS.tries * READINESS.intervalMs) / 1000} s`);
      }
    }, READINESS.intervalMs);
    return () => {
      clearInterval(timer);
      window.removeEventListener('error', onError, true);
    };
  }, []);

  if (unlayerUnavailable()) return null;
  return (
    <EmailEditor
      ref={ref}
      minHeight={640}
      options={{ version: UNLAYER_VERSION, displayMode: 'email' }}
      onReady={(unlayer) => {
        if (state.current !== 'waiting') return;
        state.current = 'ready';
        // In edit mode the design is loaded once (spec part 2 §4).
        unlayer.loadDesign((design ?? DEFAULT_UNLAYER_DESIGN) as never);
        unlayer.addEventListener('design:updated', () => callbacks.current.onChange());
        unlayer.registerCallback('image', (file: { attachments: File[] }, done: (r: { progress: number; url?: string }) => void) => {
          callbacks.current.uploadImage(file.attachments[0]).then(
            (url) => done({ progress: 100, url }),
            () => done({ progress: 0 }),
          );
        });
        const designer: EmailDesigner = {
          kind: 'unlayer',
          exportHtml: () =>
            new Promise((resolve) =>
              unlayer.exportHtml((data) =>
                resolve({
                  html: emailDocument(data.html),
                  design: { designer: 'unlayer', version: UNLAYER_VERSION, design: data.design },
                }),
              ),
            ),
        };
        callbacks.current.onReady(designer);
      }}
    />
  );
}
