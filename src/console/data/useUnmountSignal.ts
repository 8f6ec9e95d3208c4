/** An AbortSignal per mounted component, for the long waits a screen starts (job-log polls, step runs). */
import { useCallback, useEffect, useRef } from 'react';

/**
 * useUnmountSignal returns a getter of an AbortSignal that is aborted when the component unmounts: a wait given it
 * stops then, and the screen checks it before it navigates, toasts or refreshes. The controller is made in the effect
 * (not during render), so React's StrictMode mount–unmount–mount in development leaves a live one.
 */
export function useUnmountSignal(): () => AbortSignal {
  const controller = useRef<AbortController | null>(null);
  useEffect(() => {
    const current = new AbortController();
    controller.current = current;
    return () => current.abort(new DOMException('The page was left', 'AbortError'));
  }, []);
  return useCallback(() => controller.current?.signal ?? AbortSignal.abort(new DOMException('The page was left', 'AbortError')), []);
}
