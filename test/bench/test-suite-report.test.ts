import { describe, expect, it } from 'vitest';
import { type FileResult, report, type SuiteRun } from '../../bench/test-suite';

const file = (name: string, seconds: number, status = 'passed'): FileResult => ({
  name: `/repo/${name}`,
  status,
  startTime: 1_000,
  endTime: 1_000 + seconds * 1000,
});

const run = (tree: string, overrides: Partial<SuiteRun> = {}): SuiteRun => ({
  suite: '`npm run test:fast`',
  tree,
  wallMs: 60_000,
  cpuSeconds: 96,
  exitCode: 0,
  report: {
    numPassedTests: 3_000,
    numFailedTests: 0,
    numPendingTests: 4,
    numTodoTests: 1,
    testResults: [file('a.test.ts', 2), file('b.test.ts', 9), file('c.test.ts', 5)],
  },
  ...overrides,
});

/** The test-suite benchmark's section (bench/test-suite.ts): what it says must follow the runs. */
describe('the test-suite benchmark report', () => {
  it('gives each run its wall time, CPU, share of the cores and counts, and this tree slowest first', () => {
    const text = report([run('baseline: /old', { wallMs: 120_000 }), run('this tree')], {
      cores: 2,
      full: false,
      root: '/repo',
    });
    expect(text).toContain('| `npm run test:fast` | baseline: /old | **120.0 s** | 96 s | 40 % | 3 | 3,000 / 5 |');
    expect(text).toContain('| `npm run test:fast` | this tree | **60.0 s** | 96 s | 80 % | 3 | 3,000 / 5 |');
    expect(text).toContain('(this tree): `b.test.ts` 9.0 s, `c.test.ts` 5.0 s, `a.test.ts` 2.0 s.');
    expect(text).toContain('BENCH_TEST_SUITE_FULL=1');
  });

  it('marks a run with failed tests with their count, and one that exited non-zero without any with its exit code', () => {
    const failedTests = run('this tree', {
      report: { ...run('x').report, numFailedTests: 2 },
      exitCode: 1,
    });
    expect(report([failedTests], { cores: 2, full: true, root: '/repo' })).toContain('/ **2 failed**');
    const crashed = run('this tree', { exitCode: 1 });
    expect(report([crashed], { cores: 2, full: true, root: '/repo' })).toContain('| 3,000 / 5 / **exit 1** |');
    const passed = report([run('this tree')], { cores: 2, full: true, root: '/repo' });
    expect(passed).not.toContain('failed**');
    expect(passed).not.toContain('**exit');
  });
});
