// `npm run test:fast`: the unit and in-memory HTTP suites, no dockerd, no browser, no workerd
// (scripts/test-selection.mjs decides from each file's imports). `npm test` still runs everything.
import { defineConfig } from 'vitest/config';
import { selectTests } from './scripts/test-selection.mjs';
import base from './vitest.config';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: selectTests().fast,
    // Read by test/support/hub-harness.ts: suites that also run under workerd run in memory and on a socket only.
    env: { DOCKWATCH_TEST_FAST: '1' },
  },
});
