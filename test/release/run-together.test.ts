/**
 * scripts/run-together.mjs: `npm test` runs its lint and type checks side by side (issue 30, item 5).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runTogether } from '../../scripts/run-together.mjs';
import { runCommand } from '../support/run-command';

const SCRIPT = fileURLToPath(new URL('../../scripts/run-together.mjs', import.meta.url));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dockwatch-run-together-'));
  const scripts = {
    // Each waits on a file only the other writes: they pass only when they run at the same time.
    first: `node -e "require('fs').writeFileSync('first-ran', ''); const t = Date.now(); while (!require('fs').existsSync('second-ran')) { if (Date.now() - t > 20000) process.exit(5); } console.log('first out'); console.error('first err')"`,
    second: `node -e "require('fs').writeFileSync('second-ran', ''); const t = Date.now(); while (!require('fs').existsSync('first-ran')) { if (Date.now() - t > 20000) process.exit(5); } console.log('second out')"`,
    broken: `node -e "console.error('broken says why'); process.exit(3)"`,
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'together', private: true, scripts }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('runs the scripts at once and keeps each one’s output whole, in the order given', async () => {
  const results = await runTogether(['first', 'second'], { cwd: dir });
  expect(results.map((result) => [result.name, result.code])).toEqual([
    ['first', 0],
    ['second', 0],
  ]);
  expect(results[0]?.output.toString()).toMatch(/^first out\nfirst err\n$/);
  expect(results[1]?.output.toString()).toBe('second out\n');
});

it('reports a failing script with its code and its output, and the command exits 1', async () => {
  const [broken] = await runTogether(['broken'], { cwd: dir });
  expect(broken).toMatchObject({ name: 'broken', code: 3 });
  expect(broken?.output.toString()).toContain('broken says why');

  const command = await runCommand(process.execPath, [SCRIPT, 'broken'], { cwd: dir });
  expect(command.code).toBe(1);
  expect(command.stdout).toMatch(/^> npm run broken: failed \(exit 3\) in [\d.]+ s\nbroken says why\n/);
  expect((await runCommand(process.execPath, [SCRIPT], { cwd: dir })).code).toBe(2);
});
