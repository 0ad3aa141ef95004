// The order `npm test` starts its files in: the slowest first, so that a run ends on short files
// instead of one worker finishing a two-minute file while the others wait (issue 30). A file's time
// is the one vitest keeps from the last local run (its results cache), else the one kept in
// test/durations.json (a fresh clone, as CI runs, has no cache); a file neither knows, a new one,
// goes first, as vitest runs unknown files first. vitest's own sequencer knows only its cache, and
// orders the files of a fresh clone by their size.
//
//   node scripts/test-order.mjs --update   # rewrites test/durations.json from the last local run
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BaseSequencer } from 'vitest/node';
import { TEST_ROOTS } from './test-selection.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DURATIONS_FILE = join(ROOT, 'test', 'durations.json');

/** Seconds by repository path, from test/durations.json ({} when absent or unreadable). */
export function keptDurations(file = DURATIONS_FILE) {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

/** Slowest first; a file with no known time before every known one, in the order given. */
export function slowestFirst(files, secondsOf) {
  return files
    .map((file, index) => ({ file, index, seconds: secondsOf(file) }))
    .sort((a, b) => {
      if (a.seconds === undefined || b.seconds === undefined)
        return a.seconds === b.seconds ? a.index - b.index : a.seconds === undefined ? -1 : 1;
      return b.seconds - a.seconds || a.index - b.index;
    })
    .map((entry) => entry.file);
}

export class SlowestFirstSequencer extends BaseSequencer {
  async sort(files) {
    const kept = keptDurations();
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const secondsOf = (spec) => {
      const path = relative(root, spec.moduleId);
      const cached = cache.getFileTestResults(`${spec.project.name}:${path}`) ?? cache.getFileTestResults(`:${path}`);
      if (cached && cached.duration > 0) return cached.duration / 1000;
      const seconds = kept[path];
      return typeof seconds === 'number' ? seconds : undefined;
    };
    return slowestFirst(files, secondsOf);
  }
}

/** test/durations.json from vitest's results cache: the files that exist, in seconds to a tenth. */
function updateKeptDurations() {
  // Where vitest keeps it (VitestCache.resolveCacheDir): the root config's directory, named by the hash of ''.
  const cacheFile = join(
    ROOT,
    'node_modules/.vite/vitest',
    createHash('sha1').update('').digest('hex'),
    'results.json',
  );
  if (!existsSync(cacheFile)) throw new Error(`no vitest results cache at ${cacheFile}: run the tests first`);
  const { results } = JSON.parse(readFileSync(cacheFile, 'utf8'));
  const durations = {};
  for (const [key, result] of results) {
    const path = key.slice(key.indexOf(':') + 1);
    if (!TEST_ROOTS.some((root) => path.startsWith(`${root}/`)) || !existsSync(join(ROOT, path))) continue;
    durations[path] = Math.round((result.duration ?? 0) / 100) / 10;
  }
  const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  return Object.keys(sorted).length;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] !== '--update') {
    console.error('usage: node scripts/test-order.mjs --update');
    process.exit(2);
  }
  console.log(`test/durations.json: ${updateKeptDurations()} files`);
}
