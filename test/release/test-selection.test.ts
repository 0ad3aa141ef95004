/**
 * scripts/test-selection.mjs: `npm run test:fast` takes the test files that reach no test bed,
 * following imports through the test code (issue 30 item 5).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { selectTests } from '../../scripts/test-selection.mjs';

const root = mkdtempSync(join(tmpdir(), 'dockwatch-selection-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

it('leaves out a file that reaches a child process, a browser or workerd through the test support', () => {
  write('test/support/daemon.ts', "import { spawn } from 'node:child_process';\nexport const d = spawn;\n");
  write('test/support/bed.ts', "export { d } from './daemon';\n");
  write(
    'test/support/types-only.ts',
    "import type { ChildProcess } from 'node:child_process';\nexport type C = ChildProcess;\n",
  );
  write('test/http/uses-bed.test.ts', "import { d } from '../support/bed';\n");
  write('test/http/types.test.ts', "import type { C } from '../support/types-only';\nimport { it } from 'vitest';\n");
  write('test/ui/browser.test.ts', "import { chromium } from 'playwright-core';\n");
  write(
    'test/http/workerd.test.ts',
    "import { createWorkerdHub } from '../support/hub-harness';\nawait createWorkerdHub();\n",
  );
  write('hub/src/unit.test.ts', "import { x } from './unit';\n");
  // The product's own modules are not followed: its Node adapter spawns hooks, its tests need no bed.
  write('hub/src/unit.ts', "import { spawn } from 'node:child_process';\nexport const x = spawn;\n");
  write('shared/a.test.ts', '');
  write('edge-agent/b.test.ts', '');
  const { fast, slow } = selectTests(root);
  expect(fast).toEqual(['edge-agent/b.test.ts', 'hub/src/unit.test.ts', 'shared/a.test.ts', 'test/http/types.test.ts']);
  expect(Object.fromEntries(slow)).toEqual({
    'test/http/uses-bed.test.ts': 'test/support/bed.ts → test/support/daemon.ts → node:child_process',
    'test/ui/browser.test.ts': 'playwright-core',
    'test/http/workerd.test.ts': 'the harness in workerd',
  });
});

it('selects this repository’s in-memory suites and leaves the ones with processes, dockerd or a browser out', () => {
  const { fast, slow } = selectTests();
  expect(fast).toContain('test/http/http/compression.test.ts');
  expect(fast).toContain('hub/src/http/response-compression.test.ts');
  expect(slow.get('test/integration/npm-start.test.ts')).toBe('node:child_process');
  expect(slow.get('edge-agent/src/docker/dockerode-host.test.ts')).toMatch(/start-dockerd\.ts/);
  expect(slow.get('test/images/self-update.test.ts')).toMatch(/playwright-core$/);
});
