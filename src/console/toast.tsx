/**
 * A page-level toast for the public site (spec part 1 §8: bottom centre, 6 s), used where react-admin's notifications
 * are not mounted, e.g. the login page, and kept alive across the switch from the public site to the console.
 */
import { lazy, Suspense, useSyncExternalStore } from 'react';
import type { Toast } from './ToastView';

// Snackbar, Alert and their transitions load with the first toast, not with every public page.
const ToastView = lazy(() => import('./ToastView'));

let current: Toast | null = null;
const listeners = new Set<() => void>();

function emit(): void {
  for (const l of listeners) l();
}

/** showToast shows a public-site toast (spec part 1 §8). */
export function showToast(message: string, type: Toast['type'] = 'info'): void {
  current = { message, type, key: Date.now() };
  emit();
}

/** hideToast closes the current toast. */
export function hideToast(): void {
  current = null;
  emit();
}

/** GlobalToast renders the current public-site toast at the bottom centre, closing after 6 s. */
export function GlobalToast() {
  const toast = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
  if (!toast) return null;
  return (
    <Suspense fallback={null}>
      <ToastView toast={toast} onClose={hideToast} />
    </Suspense>
  );
}
