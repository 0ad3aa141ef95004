/**
 * scripts/slowest-tests.mjs, which CI runs on vitest's JSON report to keep the 20 slowest test files
 * beside the report and in the run's summary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { renderSlowest, slowestFiles, slowestFilesReporter } from '../../scripts/slowest-tests.mjs';
import { REPO_ROOT } from '../support/hub-process';
import { runCommand } from '../support/run-command';

const file = (name: string, seconds: number, tests: number, status = 'passed') => ({
  name: join(REPO_ROOT, name),
  startTime: 1_000_000,
  endTime: 1_000_000 + seconds * 1000,
  status,
  assertionResults: Array.from({ length: tests }, () => ({ status })),
});
const REPORT = {
  testResults: [
    file('test/a.test.ts', 2, 3),
    file('test/b.test.ts', 30.25, 1, 'failed'),
    file('hub/src/c.test.ts', 0.5, 7),
    { name: join(REPO_ROOT, 'test/never-ran.test.ts'), status: 'skipped', assertionResults: [] },
  ],
};

it('ranks files by wall time, slowest first, and cuts the list at the count', () => {
  expect(slowestFiles(REPORT, 2)).toEqual([
    { file: 'test/b.test.ts', seconds: 30.25, tests: 1, status: 'failed' },
    { file: 'test/a.test.ts', seconds: 2, tests: 3, status: 'passed' },
  ]);
  expect(slowestFiles({}, 20)).toEqual([]);
});

it('renders a Markdown table, and the CLI prints it for a report file', async () => {
  expect(renderSlowest(slowestFiles(REPORT, 1))).toBe(
    [
      '## The 1 slowest test files',
      '',
      '| # | file | seconds | tests | status |',
      '|---:|---|---:|---:|---|',
      '| 1 | `test/b.test.ts` | 30.3 | 1 | failed |',
      '',
    ].join('\n'),
  );
  const dir = mkdtempSync(join(tmpdir(), 'dockwatch-slowest-'));
  try {
    writeFileSync(join(dir, 'vitest.json'), JSON.stringify(REPORT));
    const printed = await runCommand(process.execPath, [
      join(REPO_ROOT, 'scripts', 'slowest-tests.mjs'),
      join(dir, 'vitest.json'),
      '--count',
      '20',
    ]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(renderSlowest(slowestFiles(REPORT, 20)));
    expect(printed.stdout.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| #'))).toHaveLength(
      3,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("ends a run of more than 20 files with the table, from vitest's own modules (npm test, test:fast)", () => {
  const module = (name: string, ms: number, tests: number) => ({
    moduleId: join(REPO_ROOT, name),
    diagnostic: () => ({ duration: ms }),
    children: { allTests: () => Array.from({ length: tests }) },
    state: () => 'passed',
  });
  const printed: string[] = [];
  const reporter = slowestFilesReporter({ count: 2, write: (text) => printed.push(text) });
  reporter.onTestRunEnd([module('test/a.test.ts', 2000, 3), module('test/b.test.ts', 30_250, 1)]);
  expect(printed).toEqual([]);
  reporter.onTestRunEnd([
    module('test/a.test.ts', 2000, 3),
    module('test/b.test.ts', 30_250, 1),
    module('hub/src/c.test.ts', 500, 7),
  ]);
  expect(printed).toEqual([
    `\n${renderSlowest([
      { file: 'test/b.test.ts', seconds: 30.25, tests: 1, status: 'passed' },
      { file: 'test/a.test.ts', seconds: 2, tests: 3, status: 'passed' },
    ])}\n`,
  ]);
});
