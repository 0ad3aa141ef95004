import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (scripts/ensure-testbed.mjs installs it); Playwright's own download is unreachable here. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Headless Chromium for a test: no sandbox (root in a container), nothing fetched in the
 * background. Playwright gives each launch a fresh profile directory and removes it on close.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    chromiumSandbox: false,
    args: [
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
