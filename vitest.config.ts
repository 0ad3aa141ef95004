import { defineConfig } from 'vitest/config';
import { slowestFilesReporter } from './scripts/slowest-tests.mjs';
import { SlowestFirstSequencer } from './scripts/test-order.mjs';
import { selectTests } from './scripts/test-selection.mjs';

const { fast, slow } = selectTests();

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real servers; two cores are shared between files.
    fileParallelism: true,
    maxWorkers: 2,
    // The slowest files first (scripts/test-order.mjs), so the run ends on short ones.
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
      // The suites that start a dockerd, a registry, Chromium or workerd: each file in its own module graph.
      { extends: true, test: { name: 'beds', include: [...slow.keys()] } },
    ],
  },
});
