/**
 * launchChromium starts Debian's chromium (CHROMIUM_PATH, default /usr/bin/chromium) headless through playwright-core,
 * with every background network feature off so a test never reaches the internet. Throws when chromium is missing
 * (scripts/ensure-chromium.sh installs it).
 */
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}
