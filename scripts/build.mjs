// The production build (`npm run build`, docs/deploy.md): the hub's Node entry and the edge agent
// bundled by esbuild into dist/hub.mjs, dist/agent.mjs and dist/cli.mjs (`dockwatch check`) (ESM, source maps, every npm dependency
// inside), the web UI into dist/ui/ui-bundle.json (scripts/build-ui.mjs), and
// dist/THIRD-PARTY-NOTICES.md for the packages those files contain. `node dist/hub.mjs` then runs
// with no node_modules, no dev dependency and no transpiler.
import { rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { buildInputs, staleReason, writeBuildManifest } from './build-manifest.mjs';
import { buildUi, ROOT } from './build-ui.mjs';
import { licenceProblem, packagesOfMetafiles, renderNotices } from './third-party-notices.mjs';

export const DIST = join(ROOT, 'dist');

// CommonJS dependencies (dockerode, pino, ssh2, ...) call require() and read __dirname: an ES module
// has neither, so every output file starts by defining them from its own URL.
const COMMONJS_SHIMS = [
  "import { createRequire as __dwCreateRequire } from 'node:module';",
  "import { fileURLToPath as __dwFileURLToPath } from 'node:url';",
  "import { dirname as __dwDirname } from 'node:path';",
  'const require = __dwCreateRequire(import.meta.url);',
  'const __filename = __dwFileURLToPath(import.meta.url);',
  'const __dirname = __dwDirname(__filename);',
].join('\n');

/**
 * Left out of the bundles, on purpose: native addons (cpu-features, *.node files) would tie dist/ to
 * one platform and CPU; what requires them loads them inside try/catch and does without.
 */
const OPTIONAL_NATIVES = ['cpu-features', '*.node'];

/**
 * Replaced by stubs that throw when used. dockerode requires them at load, for what dockwatch never
 * does: BuildKit image builds (`buildImage` with a session, BuildKit progress: grpc, protobufjs) and
 * ssh:// Docker hosts (ssh2; a watcher's endpoint is a unix socket or TCP, shared/docker/watcher-config.ts).
 * Bundled, they would be evaluated at every start for nothing: about 12 MiB of RSS in each program
 * for BuildKit's, and ssh2 instantiates a WebAssembly module with a 16 MiB memory.
 */
const UNUSED_MODULES = /^(@grpc\/grpc-js|@grpc\/proto-loader|protobufjs|ssh2)$/;

const STUB_SOURCES = {
  // docker-modem reads `require('ssh2').Client` at load, so the stub has the class; making one fails.
  ssh2: `module.exports = { Client: class Client { constructor() { throw new Error('ssh:// Docker hosts are not part of the dockwatch build'); } } };`,
};

const stubUnusedModules = {
  name: 'stub-unused-modules',
  setup(build) {
    build.onResolve({ filter: UNUSED_MODULES }, (args) => ({ path: args.path, namespace: 'unused' }));
    build.onLoad({ filter: /.*/, namespace: 'unused' }, (args) => ({
      loader: 'js',
      contents:
        STUB_SOURCES[args.path] ??
        `const fail = () => { throw new Error('${args.path} is not part of the dockwatch build (BuildKit builds are not used)'); };
module.exports = new Proxy({}, { get: (_, key) => (key === '__esModule' ? false : fail()) });`,
    }));
  },
};

/** Bundles the hub and the agent; shared code and lazily imported providers become chunks. */
export async function buildServers({ outdir = DIST } = {}) {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { hub: 'hub/src/entry/node.ts', agent: 'edge-agent/src/main.ts', cli: 'hub/src/entry/cli.ts' },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    minify: true,
    // Error and class names stay readable in logs (`registry.ghcr: ...` is ours; this is theirs).
    keepNames: true,
    external: OPTIONAL_NATIVES,
    plugins: [stubUnusedModules],
    banner: { js: COMMONJS_SHIMS },
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  return result.metafile;
}

/** The whole build into `outdir` (tests build into a temp dir: other suites read the repository's dist/ui). */
export async function buildAll({ outdir = DIST } = {}) {
  const startedAt = Date.now();
  await Promise.all(
    ['hub.mjs', 'hub.mjs.map', 'agent.mjs', 'agent.mjs.map', 'cli.mjs', 'cli.mjs.map', 'chunks'].map((name) =>
      rm(join(outdir, name), { recursive: true, force: true }),
    ),
  );
  const [servers, ui] = await Promise.all([
    buildServers({ outdir }),
    buildUi({ outfile: join(outdir, 'ui', 'ui-bundle.json') }),
  ]);
  const packages = await packagesOfMetafiles([servers, ui.metafile], ROOT);
  const refused = packages.flatMap((p) => {
    const problem = licenceProblem(p.licence);
    return problem ? [`${p.name}@${p.version}: ${problem}`] : [];
  });
  if (refused.length > 0)
    throw new Error(`build: cannot ship these packages (docs/deploy.md "Licences"):\n${refused.join('\n')}`);
  await writeFile(join(outdir, 'THIRD-PARTY-NOTICES.md'), renderNotices(packages));
  // Last: a build cut short leaves the previous manifest, older than its inputs, so the next --if-stale rebuilds.
  writeBuildManifest(outdir, { startedAt, inputs: buildInputs([servers, ui.metafile], ROOT) });
  return { packages, servers };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  // `--outdir DIR`: the release dry run (scripts/release-dry-run.sh) builds beside the work tree's dist/.
  // `--if-stale`: `npm start` and `npm run agent` build only when a file the last build read has changed.
  const { values } = parseArgs({ options: { outdir: { type: 'string' }, 'if-stale': { type: 'boolean' } } });
  const outdir = values.outdir ? resolve(values.outdir) : DIST;
  const reason = values['if-stale'] ? staleReason(outdir, ROOT) : 'asked to';
  if (reason === undefined) process.exit(0);
  if (values['if-stale']) console.log(`building ${values.outdir ?? 'dist'}/: ${reason}`);
  const { packages, servers } = await buildAll({ outdir });
  const sizes = Object.entries(servers.outputs)
    .filter(([path]) => /(hub|agent|cli)\.mjs$/.test(path))
    .map(([path, output]) => `${path.split('/').pop()} ${(output.bytes / 1024 / 1024).toFixed(1)} MiB`);
  console.log(
    `built ${values.outdir ?? 'dist'}/ in ${Date.now() - started} ms: ${sizes.join(', ')}, ui/ui-bundle.json, THIRD-PARTY-NOTICES.md (${packages.length} packages)`,
  );
}
