// Builds the web UI (ui/src) with esbuild into one file the hub serves: dist/ui/ui-bundle.json
// holds every asset (hashed name, content type, identity and gzip bodies in base64) and the page's
// CSP. Plain Node ESM, so `npm start` and `npm test` run it before any TypeScript tooling; the
// Node entry reads the file, the Workers bundle (scripts/build-workers.mjs) has it built in.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const UI_ENTRY = join(ROOT, 'ui', 'src', 'main.tsx');
export const UI_ICON = join(ROOT, 'ui', 'src', 'icon.svg');
/** The API reference page served at /api/v1/docs (docs/openapi.md): a second entry, its own page. */
export const DOCS_ENTRY = join(ROOT, 'ui', 'src', 'docs', 'main.tsx');
export const DOCS_PAGE_PATH = '/docs.html';
export const DEFAULT_UI_OUTFILE = join(ROOT, 'dist', 'ui', 'ui-bundle.json');
/** First-load JavaScript budget, gzip bytes (docs/ui.md). */
export const FIRST_LOAD_JS_BUDGET = 80 * 1024;

/** No inline script, no inline style, nothing from another origin, never framed. */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
};

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function asset(path, bytes) {
  const type = CONTENT_TYPES[extname(path)];
  if (!type) throw new Error(`build-ui: no content type for ${path}`);
  const gzip = gzipSync(bytes, { level: 9 });
  return {
    path,
    contentType: type,
    hash: sha256(bytes).slice(0, 32),
    identity: Buffer.from(bytes).toString('base64'),
    gzip: gzip.toString('base64'),
    gzipBytes: gzip.length,
  };
}

function page({ js, css, icon, title = 'dockwatch' }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<link rel="icon" href="${icon}" type="image/svg+xml">
<link rel="stylesheet" href="${css}">
<script type="module" src="${js}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The dockwatch web UI needs JavaScript. The API is at /api/v1.</noscript>
</body>
</html>
`;
}

/**
 * Builds the UI and writes the bundle file (atomically: tests build concurrently). Returns the
 * bundle and its first-load sizes; `write: false` only returns them.
 */
export async function buildUi({ outfile = DEFAULT_UI_OUTFILE, write = true } = {}) {
  const options = {
    absWorkingDir: ROOT,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: 'linked',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    outdir: join(ROOT, 'dist', 'ui', 'assets'),
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  };
  // The app is split so what it imports with import() (the release notes' Markdown renderer) is a
  // chunk of its own, fetched when first needed; the API reference page is built apart so the two
  // share no chunk and each page still loads one script.
  const [app, docs] = await Promise.all([
    build({ ...options, entryPoints: { app: UI_ENTRY }, splitting: true, chunkNames: 'chunk-[hash]' }),
    build({ ...options, entryPoints: { docs: DOCS_ENTRY } }),
  ]);
  const result = {
    outputFiles: [...app.outputFiles, ...docs.outputFiles],
    metafile: {
      inputs: { ...app.metafile.inputs, ...docs.metafile.inputs },
      outputs: { ...app.metafile.outputs, ...docs.metafile.outputs },
    },
  };
  const assets = [];
  // Each entry's JavaScript and CSS, by the name esbuild gave them (`app-<hash>.js`, `docs-<hash>.css`).
  const entries = { app: {}, docs: {} };
  // The web UI's files first: its page and budget are what tests and readers look for first.
  const files = [...result.outputFiles].sort(
    (a, b) => Number(basename(a.path).startsWith('docs-')) - Number(basename(b.path).startsWith('docs-')),
  );
  for (const file of files) {
    const entry = asset(`/assets/${basename(file.path)}`, file.contents);
    assets.push(entry);
    const owner = entries[basename(file.path).split('-')[0]];
    if (!owner) continue;
    if (file.path.endsWith('.js')) owner.js = entry;
    if (file.path.endsWith('.css')) owner.css = entry;
  }
  const { js, css } = entries.app;
  if (!js || !css) throw new Error('build-ui: esbuild produced no JavaScript or no CSS');
  if (!entries.docs.js || !entries.docs.css) throw new Error('build-ui: esbuild produced no API reference page');
  const iconBytes = await readFile(UI_ICON);
  const icon = asset(`/assets/icon-${sha256(iconBytes).slice(0, 8)}.svg`, iconBytes);
  assets.push(icon);
  assets.push(asset('/index.html', Buffer.from(page({ js: js.path, css: css.path, icon: icon.path }))));
  const docsPage = page({
    js: entries.docs.js.path,
    css: entries.docs.css.path,
    icon: icon.path,
    title: 'dockwatch API reference',
  });
  assets.push(asset(DOCS_PAGE_PATH, Buffer.from(docsPage)));
  const bundle = {
    format: 1,
    csp: UI_CSP,
    assets: assets.map(({ gzipBytes: _size, ...rest }) => rest),
    firstLoadGzipBytes: { js: js.gzipBytes, css: css.gzipBytes },
  };
  if (write) {
    await mkdir(dirname(outfile), { recursive: true });
    const temporary = `${outfile}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, JSON.stringify(bundle));
    await rename(temporary, outfile);
  }
  // The metafile names every input: the production build lists the UI's packages in its notices.
  return { bundle, outfile, jsPath: js.path, metafile: result.metafile };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const { bundle, outfile } = await buildUi();
  const { js, css } = bundle.firstLoadGzipBytes;
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  console.log(
    `built ${outfile} in ${Date.now() - started} ms: first-load JS ${kb(js)} gzip (budget ${kb(FIRST_LOAD_JS_BUDGET)}), CSS ${kb(css)} gzip`,
  );
  if (js > FIRST_LOAD_JS_BUDGET) {
    console.error('build-ui: the first-load JavaScript is over its budget (docs/ui.md)');
    process.exit(1);
  }
}
