// `npm run test:fast`: the unit and in-memory HTTP suites, no dockerd, no browser, no workerd
// (scripts/test-selection.mjs decides from each file's imports). `npm test` still runs everything.
import { defineConfig } from 'vitest/config';
import { selectTests } from './scripts/test-selection.mjs';
import base from './vitest.config';

const { include: _everyFile, globalSetup: _testBedBuild, ...shared } = base.test ?? {};

export default defineConfig({
  test: {
    ...shared,
    include: selectTests().fast,
    // One module graph per worker, as in vitest.config.ts (125 s isolated, 67 s shared, on this
    // 2-core machine).
    isolate: false,
    // Read by test/support/hub-harness.ts: suites that also run under workerd run in memory and on a socket only.
    env: { DOCKWATCH_TEST_FAST: '1' },
  },
});
