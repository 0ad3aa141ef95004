// `npm run test:fast`: the unit and in-memory HTTP suites, no dockerd, no browser, no workerd
// (scripts/test-selection.mjs decides from each file's imports). `npm test` still runs everything.
import { defineConfig } from 'vitest/config';
import { selectTests } from './scripts/test-selection.mjs';
import base from './vitest.config';

const { projects: _everyFile, ...shared } = base.test ?? {};

export default defineConfig({
  test: {
    ...shared,
    include: selectTests().fast,
    // As the `unit` project of vitest.config.ts: one module graph per worker (125 s isolated, 67 s
    // shared, on this 2-core machine).
    isolate: false,
    // Read by test/support/hub-harness.ts: suites that also run under workerd run in memory and on a socket only.
    env: { DOCKWATCH_TEST_FAST: '1' },
  },
});
