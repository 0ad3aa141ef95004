/**
 * vitest globalSetup of the test-bed suites: the production build (dist/hub.mjs, dist/agent.mjs),
 * made once before any file runs when a source it was made from has changed, as `npm start` and
 * `npm run agent` make it (`scripts/build.mjs --if-stale`). The hub and agent processes of the
 * tests run it (test/support/hub-process.ts): the program people run, and about a second less of
 * start-up per process than through tsx (issue 30, item 5).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './hub-process';

export default function buildOnce(): void {
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs'), '--if-stale'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
