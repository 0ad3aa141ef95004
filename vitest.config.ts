import { defineConfig } from 'vitest/config';
import { slowestFilesReporter } from './scripts/slowest-tests.mjs';
import { SlowestFirstSequencer } from './scripts/test-order.mjs';
import { selectTests } from './scripts/test-selection.mjs';

const { fast, slow } = selectTests();

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Four files at once on two cores: the test-bed suites wait on daemons, registries and timers
    // for much of their time. With the module graphs shared (isolate: false below), four ended a
    // run in 671 s where three took 721 to 776 s, and two 935 s before. DOCKWATCH_TEST_WORKERS
    // overrides it (a larger machine, or to measure).
    fileParallelism: true,
    maxWorkers: Number(process.env.DOCKWATCH_TEST_WORKERS ?? 4),
    // A poll waits for what a person would see "at once"; on a loaded machine that can take seconds,
    // so a poll gives up after 10 s rather than Vitest's 1 s (a condition that never comes still fails).
    expect: { poll: { timeout: 10_000 } },
    // One project after the other (a worker is kept only for a file of its own project), each the
    // slowest files first, so the run ends on short ones (scripts/test-order.mjs).
    sequence: { sequencer: SlowestFirstSequencer },
    // The 20 slowest files after a run of more than 20 (CI replaces the reporters and makes the table from its JSON report).
    reporters: ['default', slowestFilesReporter()],
    projects: [
      {
        extends: true,
        // The unit and in-memory suites (no test bed, scripts/test-selection.mjs) hold no state
        // between files: one module graph per worker, not one per file (half of their time was
        // importing the hub again for each file).
        test: { name: 'unit', include: fast, isolate: false },
      },
      // The suites that start a dockerd, a registry, Chromium or workerd. Their hub and agent
      // processes run the production build, made first if stale (test/support/build-once.ts).
      // Each file starts and stops its own servers; the module graph is shared as in `unit`:
      // importing the hub, dockerode and Playwright again for each of 150 files cost about 150
      // CPU-seconds of a run (Linux process accounting), a run took 776 s instead of 908 s.
      {
        extends: true,
        test: {
          name: 'beds',
          include: [...slow.keys()],
          globalSetup: ['test/support/build-once.ts'],
          isolate: false,
        },
      },
    ],
  },
});
