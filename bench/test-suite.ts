import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BenchContext, type Benchmark, formatCount, markdownTable } from './support/benchmark';
import { machineBusySeconds, sampleMachineCpu, waitForQuietMachine } from './support/proc-stats';

/**
 * The test suite as a contributor waits for it (issue 30 item 5): `npm run test:fast` (the unit and
 * in-memory HTTP suites), and with BENCH_TEST_SUITE_FULL=1 every file as `npm test` runs them after
 * its installs, lint and type checks (`vitest run`: four files at once, the test beds included).
 * BENCH_TEST_SUITE_BASELINE=<dir> (another commit's tree, with its node_modules) is measured first,
 * the same way, on the same machine.
 */
export const testSuite: Benchmark = {
  name: 'test-suite',
  async run(ctx) {
    const full = process.env.BENCH_TEST_SUITE_FULL === '1';
    const baseline = process.env.BENCH_TEST_SUITE_BASELINE;
    const trees = [
      ...(baseline ? [{ label: `baseline: ${treeName(resolve(baseline))}`, dir: resolve(baseline) }] : []),
      { label: 'this tree', dir: ctx.root },
    ];
    const suites: Suite[] = [FAST, ...(full ? [FULL] : [])];
    const runs: SuiteRun[] = [];
    for (const suite of suites) {
      for (const tree of trees) {
        if (suite.config && !existsSync(join(tree.dir, suite.config))) {
          ctx.log(`${tree.label}: no ${suite.config}, ${suite.name} not measured there`);
          continue;
        }
        runs.push(await measure(ctx, suite, tree));
      }
    }
    return { title: 'Test suite', markdown: report(runs, { cores: ctx.machine.cores, full, root: ctx.root }) };
  },
};

/** A tree by its commit (`git rev-parse --short HEAD`), or by its path where it is no git work tree. */
function treeName(dir: string): string {
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' });
  return commit.status === 0 ? commit.stdout.trim() : dir;
}

interface Suite {
  name: string;
  /** The vitest config file; undefined for the default (vitest.config.ts), as `npm test` runs it. */
  config?: string;
}

const FAST: Suite = { name: '`npm run test:fast`', config: 'vitest.fast.config.ts' };
const FULL: Suite = { name: '`vitest run` of `npm test`' };

export interface FileResult {
  name: string;
  status: string;
  startTime: number;
  endTime: number;
}

/** The parts of vitest's JSON report read here. */
export interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: FileResult[];
}

export interface SuiteRun {
  suite: string;
  tree: string;
  wallMs: number;
  /** Busy CPU-seconds of the whole machine during the run: the test beds' daemons and containers too. */
  cpuSeconds: number;
  report: JsonReport;
  exitCode: number | null;
}

async function measure(ctx: BenchContext, suite: Suite, tree: { label: string; dir: string }): Promise<SuiteRun> {
  if (!suite.config) {
    // What `npm test` makes before vitest: the test bed's dockerd and Prometheus, and the UI bundle.
    for (const script of ['scripts/ensure-testbed.mjs', 'scripts/build-ui.mjs']) {
      const made = spawnSync(process.execPath, [script], { cwd: tree.dir, encoding: 'utf8' });
      if (made.status !== 0) throw new Error(`bench.test-suite: ${script} failed in ${tree.dir}\n${made.stderr}`);
    }
  }
  const quiet = await waitForQuietMachine({ busyBelow: 0.15, windowMs: 2_000, maxMs: 60_000 });
  ctx.log(`${tree.label}: ${suite.name}, the machine ${Math.round(quiet.busyShare * 100)} % busy before`);
  const outDir = mkdtempSync(join(tmpdir(), 'dockwatch-bench-tests-'));
  const reportFile = join(outDir, 'report.json');
  try {
    const args = [
      join(tree.dir, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      ...(suite.config ? ['--config', suite.config] : []),
      '--reporter=json',
      `--outputFile=${reportFile}`,
    ];
    const before = sampleMachineCpu();
    const started = performance.now();
    const { exitCode, stderrTail } = await runQuietly(args, tree.dir);
    const wallMs = performance.now() - started;
    const cpuSeconds = machineBusySeconds(before, sampleMachineCpu());
    if (!existsSync(reportFile)) {
      throw new Error(
        `bench.test-suite: ${suite.name} in ${tree.dir} wrote no report (exit ${exitCode})\n${stderrTail}`,
      );
    }
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport;
    ctx.log(
      `${tree.label}: ${suite.name} took ${(wallMs / 1000).toFixed(1)} s, ${report.numPassedTests} passed, ${report.numFailedTests} failed`,
    );
    return { suite: suite.name, tree: tree.label, wallMs, cpuSeconds, report, exitCode };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** Runs vitest with its output discarded but the end of stderr kept, for a run that writes no report. */
function runQuietly(args: string[], cwd: string): Promise<{ exitCode: number | null; stderrTail: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderrTail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-4_000);
    });
    child.once('error', reject);
    child.once('exit', (exitCode) => resolvePromise({ exitCode, stderrTail }));
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function slowestFiles(run: SuiteRun, root: string, count: number): string {
  return [...run.report.testResults]
    .sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime))
    .slice(0, count)
    .map(
      (file) =>
        `\`${file.name.startsWith(root) ? file.name.slice(root.length + 1) : file.name}\` ${seconds(file.endTime - file.startTime)}`,
    )
    .join(', ');
}

/** The section's text: a row per run, the slowest files of this tree's runs, the targets. */
export function report(runs: readonly SuiteRun[], options: { cores: number; full: boolean; root: string }): string {
  const { cores, full, root } = options;
  const rows = runs.map((run) => {
    const { report } = run;
    // Tests that failed, else an exit code that says the run failed outside them (an unhandled error).
    const failed =
      report.numFailedTests > 0
        ? ` / **${report.numFailedTests} failed**`
        : run.exitCode !== 0
          ? ` / **exit ${run.exitCode}**`
          : '';
    return [
      run.suite,
      run.tree,
      `**${seconds(run.wallMs)}**`,
      `${Math.round(run.cpuSeconds)} s`,
      `${Math.round((run.cpuSeconds / (run.wallMs / 1000) / cores) * 100)} %`,
      formatCount(report.testResults.length),
      `${formatCount(report.numPassedTests)} / ${formatCount(report.numPendingTests + report.numTodoTests)}${failed}`,
    ];
  });
  const thisTree = runs.filter((run) => run.tree === 'this tree');
  return [
    'Each suite run as a contributor runs it, one at a time, after the machine has been quiet for 2 s: `node node_modules/vitest/vitest.mjs run` with vitest\'s JSON report (its own output discarded), in the tree named. "CPU" is every busy CPU-second of the machine during the run (from /proc/stat: the test beds\' dockerd, containers, browsers and workerd included). `BENCH_TEST_SUITE_FULL=1` adds the whole suite (`npm test` runs it after its installs, lint and type checks, about 40 s more in a fresh clone); `BENCH_TEST_SUITE_BASELINE=<dir>` measures another tree first.',
    '',
    markdownTable(['suite', 'tree', 'wall', 'CPU', 'cores busy', 'files', 'tests passed / skipped'], rows, [
      'left',
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
    ]),
    '',
    ...thisTree.map((run) => `Slowest files of ${run.suite} (this tree): ${slowestFiles(run, root, 5)}.`),
    '',
    `Issue 30's targets: \`npm run test:fast\` under 90 s; \`npm test\` under 10 minutes in a fresh clone (\`CI=true bash .ci/run\`; CONTRIBUTING.md keeps its figures)${full ? '' : '; the whole suite is measured with `BENCH_TEST_SUITE_FULL=1`'}. Before issue 30: 13 to 16 minutes for \`npm test\` alone on this machine (391 files, 3,580 tests).`,
  ].join('\n');
}
