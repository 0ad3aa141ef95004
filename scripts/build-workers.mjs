// Bundles the hub's Workers entry into one ES module for workerd (wrangler.toml `main`, and the
// Miniflare integration test). Plain Node ESM; `node scripts/build-workers.mjs` builds dist/workers.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { buildInputs } from './build-manifest.mjs';
import { buildUi } from './build-ui.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WORKERS_ENTRY = join(ROOT, 'hub', 'src', 'entry', 'workers.ts');
export const DEFAULT_OUTFILE = join(ROOT, 'dist', 'workers', 'index.js');

/** esbuild options for any module that runs in workerd (tests reuse them for probe workers). */
export const WORKERD_BUILD_OPTIONS = {
  bundle: true,
  format: 'esm',
  // neutral, not browser or node: a node:* import anywhere in the graph fails the build.
  platform: 'neutral',
  target: 'es2022',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  // The runtime's own modules stay imports; nothing in the hub needs them today.
  external: ['cloudflare:*'],
  sourcemap: 'linked',
  logLevel: 'warning',
};

/**
 * The web UI inside the Worker: built afresh, and put in place of hub/src/adapter/workers/built-in-ui.ts
 * (a Worker has no file system to read it from).
 */
function builtInUiPlugin(bundle) {
  return {
    name: 'dockwatch-built-in-ui',
    setup(b) {
      b.onResolve({ filter: /\/built-in-ui$/ }, (args) => ({
        path: join(args.resolveDir, 'built-in-ui'),
        namespace: 'dockwatch-ui',
      }));
      b.onLoad({ filter: /.*/, namespace: 'dockwatch-ui' }, () => ({
        contents: `export const builtInUi = ${JSON.stringify(bundle)};`,
        loader: 'js',
      }));
    },
  };
}

/** Builds the hub's Worker bundle, the web UI included; returns the path of the written file. */
export async function buildWorkersBundle({ outfile = DEFAULT_OUTFILE } = {}) {
  return (await buildWorkersBundleWithInputs({ outfile })).outfile;
}

/** The same, and the files it was built from (build-manifest.mjs), so a caller can tell when it is stale. */
export async function buildWorkersBundleWithInputs({ outfile = DEFAULT_OUTFILE } = {}) {
  const ui = await buildUi();
  const workers = await build({
    ...WORKERD_BUILD_OPTIONS,
    // The metafile names inputs relative to this, as buildInputs expects.
    absWorkingDir: ROOT,
    entryPoints: [WORKERS_ENTRY],
    outfile,
    metafile: true,
    plugins: [builtInUiPlugin(ui.bundle)],
  });
  const inputs = buildInputs([ui.metafile, workers.metafile], ROOT);
  return { outfile, inputs: [...new Set([...inputs, 'scripts/build-workers.mjs'])].sort() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `--outfile FILE`: the release dry run (scripts/release-dry-run.sh) builds beside the work tree's dist/.
  const { values } = parseArgs({ options: { outfile: { type: 'string' } } });
  const outfile = await buildWorkersBundle(values.outfile ? { outfile: resolve(values.outfile) } : {});
  console.log(`built ${outfile}`);
}
