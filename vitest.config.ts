import { defineConfig } from 'vitest/config';
import { slowestFilesReporter } from './scripts/slowest-tests.mjs';

export default defineConfig({
  test: {
    include: ['hub/**/*.test.ts', 'shared/**/*.test.ts', 'edge-agent/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real servers; two cores are shared between files.
    fileParallelism: true,
    maxWorkers: 2,
    // The 20 slowest files after a run of more than 20 (CI replaces the reporters and makes the table from its JSON report).
    reporters: ['default', slowestFilesReporter()],
  },
});
