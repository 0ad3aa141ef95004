import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const HELPERS = 'test/support/chromium.ts';

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/**
 * Chromium cuts a navigation in flight with ERR_NETWORK_CHANGED whenever another test file's dockerd
 * or podman adds an interface; gotoSteady and reloadSteady (test/support/chromium.ts) make it again.
 * Playwright has no hook for every navigation, so this rule keeps a test from calling page.goto or
 * page.reload directly, where one cut would fail it.
 */
describe('navigations in the test suite', () => {
  it('go through gotoSteady and reloadSteady', () => {
    const direct = typescriptFiles(join(ROOT, 'test'))
      .filter((file) => file !== HELPERS)
      .filter((file) => /\.(goto|reload)\(/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(direct).toEqual([]);
  });
});
