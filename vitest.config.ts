import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['hub/**/*.test.ts', 'shared/**/*.test.ts', 'edge-agent/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real servers; two cores are shared between files.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
