// Installs npm dependencies when they are missing or older than the lockfile, so that
// `npm start` and `npm test` work on a fresh clone. Plain Node: it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');

const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
if (stale) {
  // `npm install`, not `npm ci`: npm 11's ci rejects lock files that lack other platforms' optional
  // packages (Biome's, esbuild's), which its own install leaves out (npm/cli#8805). With a lock in sync,
  // install takes exactly the locked versions and leaves package-lock.json untouched
  // (test/architecture/package-lock.test.ts keeps it in sync). `--prefer-offline`: the lock pins every
  // version and integrity hash, so what npm's cache holds is taken without asking the registry again
  // (15 s instead of 27 s on a machine that installed them before); what it lacks is fetched.
  console.log('installing npm dependencies (npm install, from package-lock.json)…');
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
