/**
 * Whether Unlayer failed to load in this page session. Kept apart from UnlayerDesigner so the editor can
 * ask without loading react-email-editor. A failed script tag never recovers (STACK-NOTES), so once Unlayer has failed
 * the editor goes straight to the offline designer until the page is reloaded.
 */
let reason: string | undefined;

/** unlayerUnavailable is why Unlayer failed earlier in this page session, or undefined when it has not. */
export function unlayerUnavailable(): string | undefined {
  return reason;
}

/** markUnlayerUnavailable records why Unlayer could not load. */
export function markUnlayerUnavailable(why: string): void {
  reason = why;
}
