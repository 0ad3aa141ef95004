// What the last production build read, so `npm start` and `npm run agent` rebuild dist/ only when
// something it was built from changed (`node scripts/build.mjs --if-stale`). The list comes from
// esbuild's metafiles, so it follows the imports by itself: no list of source folders to keep.
// Plain Node with no dependency: checking costs a few milliseconds of stat calls, no esbuild.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const MANIFEST_NAME = '.build-inputs.json';
/** What a run needs from dist/: without one of them the build is stale whatever the dates say. */
export const RUN_OUTPUTS = ['hub.mjs', 'agent.mjs', join('ui', 'ui-bundle.json')];

/**
 * Besides the imports: the build's own code, and npm's record of the installed tree (npm keeps
 * the packages' publish dates as their files' mtimes, so an upgrade is seen here, not in them).
 */
const ALWAYS_READ = [
  'scripts/build.mjs',
  'scripts/build-ui.mjs',
  'scripts/build-manifest.mjs',
  'scripts/third-party-notices.mjs',
  'node_modules/.package-lock.json',
];

/** The files of the metafiles' inputs (esbuild names them relative to the working directory), sorted. */
export function buildInputs(metafiles, root) {
  const files = new Set(ALWAYS_READ);
  for (const metafile of metafiles)
    for (const input of Object.keys(metafile.inputs)) {
      // Namespaced inputs (`unused:ssh2`, the stubs of scripts/build.mjs) are not files.
      if (/^[a-z-]+:/.test(input)) continue;
      files.add(relative(root, join(root, input)));
    }
  return [...files].sort();
}

/** Written after a successful build; `startedAt` so that an edit made during the build still counts. */
export function writeBuildManifest(outdir, { startedAt, inputs }) {
  writeFileSync(join(outdir, MANIFEST_NAME), `${JSON.stringify({ startedAt, inputs }, null, 1)}\n`);
}

const mtimeOf = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
};

/** Why `outdir` must be rebuilt, in words for the console; undefined when it is up to date. */
export function staleReason(outdir, root) {
  for (const output of RUN_OUTPUTS) if (mtimeOf(join(outdir, output)) === undefined) return `no ${output} yet`;
  return changedInput(outdir, root);
}

/**
 * Why the build in `outdir` no longer matches its sources, from its manifest alone (any bundle
 * built with writeBuildManifest); undefined when none of its inputs changed since it started.
 */
export function changedInput(outdir, root) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(outdir, MANIFEST_NAME), 'utf8'));
  } catch {
    return `no ${MANIFEST_NAME} from a previous build`;
  }
  if (typeof manifest?.startedAt !== 'number' || !Array.isArray(manifest.inputs))
    return `${MANIFEST_NAME} is unreadable`;
  for (const input of manifest.inputs) {
    const mtime = mtimeOf(join(root, String(input)));
    if (mtime === undefined) return `${input} is gone`;
    if (mtime > manifest.startedAt) return `${input} changed`;
  }
  return undefined;
}
