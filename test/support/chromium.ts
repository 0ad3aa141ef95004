import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Debian's build of Chromium's headless shell (scripts/ensure-testbed.mjs installs it); Playwright's
 * own download is unreachable here. It is what Playwright itself runs for a headless launch: the
 * same Blink and V8 without the browser's UI layer. Four UI journeys cost Chromium 31 CPU-seconds
 * with it against 57 with the full browser in its new headless mode (Linux process accounting).
 */
export const CHROMIUM_PATH = '/usr/bin/chromium-headless-shell';

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

type GotoOptions = Parameters<Page['goto']>[1];

/**
 * page.goto, made again when Chromium cut it with ERR_NETWORK_CHANGED: Chromium drops what is in
 * flight whenever the machine's interfaces change, and other test files' dockerd and podman add
 * bridges and veths while a journey runs (seen in CI on a navigation to 127.0.0.1). Nothing the
 * page did; any other failure, or a third cut in a row, still fails the test.
 */
export function gotoSteady(page: Page, url: string, options?: GotoOptions): ReturnType<Page['goto']> {
  return steadily(() => page.goto(url, options));
}

/** page.reload, made again when Chromium cut it with ERR_NETWORK_CHANGED (see gotoSteady). */
export function reloadSteady(page: Page): ReturnType<Page['reload']> {
  return steadily(() => page.reload());
}

async function steadily<T>(navigate: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await navigate();
    } catch (error) {
      if (attempt === 3 || !String(error).includes('net::ERR_NETWORK_CHANGED')) throw error;
    }
  }
}
