/**
 * The public forms' optional captcha and conversion tracking (spec part 1 §5 "If the captcha script is missing, the
 * message is sent with an empty answer", §7 sign-up "invisible v3 captcha, action submit ... A captcha failure is only
 * logged", conversion tracking after submit). Both are off unless the server's configuration
 * (GET /api/signup/signup/config) names them; the server verifies the answer.
 */
import type { components } from '../../../generated/types/signup.gen';
import { publicClient, unwrap } from './publicApi';

type PublicConfig = components['schemas']['PublicConfig'];

declare global {
  interface Window {
    grecaptcha?: { ready(cb: () => void): void; execute(siteKey: string, opts: { action: string }): Promise<string> };
  }
}

let config: Promise<PublicConfig> | undefined;

/** publicConfig fetches the public configuration once per page load; off (nulls) when it cannot be read. */
export function publicConfig(): Promise<PublicConfig> {
  config ??= publicClient('signup')
    .GET('/signup/config')
    .then(unwrap)
    .catch((): PublicConfig => ({ captcha: null, conversion_tracking_url: null }));
  return config;
}

let script: Promise<void> | undefined;

function loadScript(src: string): Promise<void> {
  script ??= new Promise<void>((resolve, reject) => {
    const el = document.createElement('script');
    el.src = src;
    el.async = true;
    el.onload = () => resolve();
    el.onerror = () => reject(new Error(`captcha script ${src} did not load`));
    document.head.appendChild(el);
  });
  return script;
}

/**
 * captchaAnswer returns a token for `action` from the configured provider, or '' when no captcha is configured or its
 * script is missing or fails (the failure is logged; the server then decides).
 */
export async function captchaAnswer(action = 'submit'): Promise<string> {
  const { captcha } = await publicConfig();
  if (!captcha) return '';
  try {
    await loadScript(captcha.script_url);
    const g = window.grecaptcha;
    if (!g) throw new Error('captcha script loaded without grecaptcha');
    await new Promise<void>((resolve) => g.ready(resolve));
    return await g.execute(captcha.site_key, { action });
  } catch (err) {
    console.warn('captcha:', (err as Error).message);
    return '';
  }
}

/** trackConversion posts {email} to the configured conversion tracker after a sign-up; does nothing when off. */
export async function trackConversion(email: string): Promise<void> {
  const { conversion_tracking_url: url } = await publicConfig();
  if (!url) return;
  const body = new Blob([JSON.stringify({ email })], { type: 'application/json' });
  if (!navigator.sendBeacon?.(url, body)) void fetch(url, { method: 'POST', body, keepalive: true }).catch(() => undefined);
}
