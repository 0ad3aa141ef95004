import { defineConfig } from 'vitest/config';
import { slowestFilesReporter } from './scripts/slowest-tests.mjs';
import { SlowestFirstSequencer } from './scripts/test-order.mjs';
import { selectTests } from './scripts/test-selection.mjs';

const { fast, slow } = selectTests();

export default defineConfig({
  test: {
    // Four files share two cores, and a file starting with the heaviest ones runs several times
    // slower than alone: a test may take a minute, a setup or teardown two (a 2,000-tag push took
    // 4 s alone and over 30 s with five files at once). A test that hangs still fails, later.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Four files at once on two cores: the test-bed suites wait on daemons, registries and timers
    // for much of their time. Five kept both cores busier (97-100 % of a run against about 85 %) and
    // ended a run sooner, but three of six fresh-clone runs then failed a time limit somewhere (a
    // first page load, a 2,000-tag push, a teardown). DOCKWATCH_TEST_WORKERS overrides it.
    fileParallelism: true,
    maxWorkers: Number(process.env.DOCKWATCH_TEST_WORKERS ?? 4),
    // A poll waits for what a person would see "at once"; on a loaded machine that can take seconds,
    // so a poll gives up after 10 s rather than Vitest's 1 s (a condition that never comes still fails).
    expect: { poll: { timeout: 10_000 } },
    // The slowest files first (scripts/test-order.mjs), so the run ends on short ones.
    sequence: { sequencer: SlowestFirstSequencer },
    // The 20 slowest files after a run of more than 20 (CI replaces the reporters and makes the table from its JSON report).
    reporters: ['default', slowestFilesReporter()],
    // One project for every file. vitest keeps a worker for the next file only when that file is of
    // the same project: with the unit and the test-bed files in two projects, a run started 98
    // workers where four do, each importing the hub, dockerode and Playwright again (about 100
    // CPU-seconds, Linux process accounting), and the files of the two could not share the cores.
    include: [...fast, ...slow.keys()],
    // The production build that the test beds' hub and agent processes run, made first if stale
    // (test/support/build-once.ts).
    globalSetup: ['test/support/build-once.ts'],
    // One module graph per worker, not one per file: importing the hub, dockerode and Playwright
    // again for each of 477 files cost about 150 CPU-seconds of a run. No suite leaves state behind:
    // each file starts and stops its own servers, and fakes no timer or global it does not restore.
    isolate: false,
  },
});
