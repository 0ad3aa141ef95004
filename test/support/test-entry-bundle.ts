import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Under node_modules, where Node finds the bundles' npm packages (left out of them). */
const BUNDLES_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'dockwatch-test-entries');

const bundles = new Map<string, Promise<string>>();

/**
 * A test's own hub entry (test/support/*-hub-entry.ts: the hub with a test seam) bundled once per
 * test worker, to be run by `node` as the production build is. Through tsx, each such hub spent
 * about two CPU-seconds compiling the hub's sources before it listened, and a run starts a few
 * dozen of them; the bundle takes under a second, once.
 *
 * The file is named by its content: workers of one run write the same file (by rename, so none
 * reads half of it), and the bundles of older sources are removed.
 */
export function bundleTestEntry(entry: string): Promise<string> {
  let bundled = bundles.get(entry);
  if (bundled === undefined) {
    bundled = writeBundle(entry);
    bundles.set(entry, bundled);
  }
  return bundled;
}

async function writeBundle(entry: string): Promise<string> {
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [entry],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  const code = result.outputFiles[0]?.contents;
  if (code === undefined) throw new Error(`esbuild wrote nothing for ${entry}`);
  const name = basename(entry, '.ts');
  const file = `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
  await mkdir(BUNDLES_DIR, { recursive: true });
  const temporary = join(BUNDLES_DIR, `.${file}.${process.pid}`);
  await writeFile(temporary, code);
  await rename(temporary, join(BUNDLES_DIR, file));
  const older = new RegExp(`^${name}-[0-9a-f]{16}\\.mjs$`);
  for (const other of await readdir(BUNDLES_DIR)) {
    if (other !== file && older.test(other)) await rm(join(BUNDLES_DIR, other), { force: true });
  }
  return join(BUNDLES_DIR, file);
}
