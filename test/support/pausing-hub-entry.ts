/**
 * The hub as hub/src/entry/node.ts runs it (its signal handling included), plus a pause point for
 * crash and shutdown tests: once an update operation has journalled the phase named by
 * UPDATE_TEST_PAUSE_AT (for `prepare`: its second write, the one that records what a restore
 * needs), the run stops there and the hub prints `PAUSED <phase> <operationId>` on stdout: for good,
 * or for UPDATE_TEST_PAUSE_FOR_MS. The test then kills the process (SIGKILL) or stops it (SIGTERM).
 * These variables are read here only, never by the hub itself.
 */
import { startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { stopOnSignals } from '../../hub/src/adapter/node/stop-on-signals';

const pauseAt = process.env['UPDATE_TEST_PAUSE_AT'];
const pauseForMs = process.env['UPDATE_TEST_PAUSE_FOR_MS'];

startNodeHub({
  env: process.env,
  deps: {
    updates: {
      timing: { pollMs: 100, startSettleMs: 500 },
      afterSave: async (operation) => {
        if (operation.phase !== pauseAt || operation.status === 'queued') return;
        if (operation.phase === 'prepare' && operation.tempName === undefined) return;
        process.stdout.write(`PAUSED ${operation.phase} ${operation.id}\n`);
        await new Promise((resolve) => {
          if (pauseForMs !== undefined) setTimeout(resolve, Number(pauseForMs));
        });
      },
    },
  },
})
  .then(stopOnSignals)
  .catch((error: unknown) => {
    console.error(`pausing hub: ${(error as Error).message}`);
    process.exit(1);
  });
