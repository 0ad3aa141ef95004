// The production build (`npm run build`, docs/deploy.md): the hub's Node entry and the edge agent
// bundled by esbuild into dist/hub.mjs and dist/agent.mjs (ESM, source maps, every npm dependency
// inside), the web UI into dist/ui/ui-bundle.json (scripts/build-ui.mjs), and
// dist/THIRD-PARTY-NOTICES.md for the packages those files contain. `node dist/hub.mjs` then runs
// with no node_modules, no dev dependency and no transpiler.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
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
 * Left out of the bundles, on purpose: ssh2 (dockerode's ssh:// transport) loads its optional
 * native crypto binding and cpu-features inside try/catch and falls back to plain JavaScript when
 * they are missing, which they then are. Native addons would tie dist/ to one platform and CPU.
 */
const OPTIONAL_NATIVES = ['cpu-features', '*.node'];

/**
 * Replaced by a stub that throws when used: dockerode requires them at load for BuildKit image
 * builds (`buildImage` with a session, BuildKit progress), which dockwatch never does. Bundled,
 * they would be evaluated at every start for nothing: about 12 MiB of RSS in each program.
 */
const UNUSED_BUILDKIT_MODULES = /^(@grpc\/grpc-js|@grpc\/proto-loader|protobufjs)$/;

const stubUnusedModules = {
  name: 'stub-unused-modules',
  setup(build) {
    build.onResolve({ filter: UNUSED_BUILDKIT_MODULES }, (args) => ({ path: args.path, namespace: 'unused' }));
    build.onLoad({ filter: /.*/, namespace: 'unused' }, (args) => ({
      loader: 'js',
      contents: `const fail = () => { throw new Error('${args.path} is not part of the dockwatch build (BuildKit builds are not used)'); };
module.exports = new Proxy({}, { get: (_, key) => (key === '__esModule' ? false : fail()) });`,
    }));
  },
};

/** Bundles the hub and the agent; shared code and lazily imported providers become chunks. */
export async function buildServers({ outdir = DIST } = {}) {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { hub: 'hub/src/entry/node.ts', agent: 'edge-agent/src/main.ts' },
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
  await Promise.all(
    ['hub.mjs', 'hub.mjs.map', 'agent.mjs', 'agent.mjs.map', 'chunks'].map((name) =>
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
  return { packages, servers };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const { packages, servers } = await buildAll();
  const sizes = Object.entries(servers.outputs)
    .filter(([path]) => /(hub|agent)\.mjs$/.test(path))
    .map(([path, output]) => `${path.split('/').pop()} ${(output.bytes / 1024 / 1024).toFixed(1)} MiB`);
  console.log(
    `built dist/ in ${Date.now() - started} ms: ${sizes.join(', ')}, ui/ui-bundle.json, THIRD-PARTY-NOTICES.md (${packages.length} packages)`,
  );
}
