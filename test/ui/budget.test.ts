/** The first-load JavaScript budget of docs/ui.md: 80 kB gzip (issue 28), measured on a fresh build. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildUi, FIRST_LOAD_JS_BUDGET } from '../../scripts/build-ui.mjs';

describe('the web UI size budget', () => {
  it('keeps the first-load JavaScript under 80 kB gzip', async () => {
    const { bundle, jsPath } = await buildUi({ write: false });
    const js = bundle.assets.find((asset) => asset.path === jsPath);
    expect(js).toBeDefined();
    // Measured again here, not only trusted from the build's own report.
    const gzipBytes = gzipSync(Buffer.from(js?.identity ?? '', 'base64'), { level: 9 }).length;
    expect(bundle.firstLoadGzipBytes.js).toBe(gzipBytes);
    expect(FIRST_LOAD_JS_BUDGET).toBe(80 * 1024);
    expect(gzipBytes).toBeLessThanOrEqual(FIRST_LOAD_JS_BUDGET);
    // The page loads exactly one script: nothing else counts towards first load.
    const page = Buffer.from(
      bundle.assets.find((asset) => asset.path === '/index.html')?.identity ?? '',
      'base64',
    ).toString();
    expect(page.match(/<script/g)).toHaveLength(1);
  });

  it('loads the release notes renderer (marked) only when notes are shown, as a chunk of its own', async () => {
    const { bundle, jsPath } = await buildUi({ write: false });
    const text = (path: string) =>
      Buffer.from(bundle.assets.find((asset) => asset.path === path)?.identity ?? '', 'base64').toString();
    // A message of marked's own lexer: it is in the lazily imported chunk, not in the first load.
    const MARKED = 'Infinite loop on byte';
    const app = text(jsPath);
    expect(app).not.toContain(MARKED);
    const chunks = bundle.assets.filter((asset) => /^\/assets\/chunk-[^/]+\.js$/.test(asset.path));
    expect(chunks.filter((chunk) => text(chunk.path).includes(MARKED))).toHaveLength(1);
    // Fetched by import() only: the first load imports no chunk statically.
    expect(app).not.toMatch(/(?:^|[;}])import[^(]*from\s*["']\.\/chunk-/);
    expect(app).toMatch(/import\(["']\.\/chunk-[A-Z0-9]+\.js["']\)/);
  });
});
