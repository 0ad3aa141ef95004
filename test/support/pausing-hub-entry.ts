/**
 * The hub as hub/src/entry/node.ts runs it, plus a pause point for crash tests: once an update
 * operation has journalled the phase named by UPDATE_TEST_PAUSE_AT (for `prepare`: its second
 * write, the one that records what a restore needs), the run stops there for good and the hub
 * prints `PAUSED <phase> <operationId>` on stdout. The test then kills the process with SIGKILL.
 * UPDATE_TEST_PAUSE_AT is read here only, never by the hub itself.
 */
import { startNodeHub } from '../../hub/src/adapter/node/start-node-hub';

const pauseAt = process.env['UPDATE_TEST_PAUSE_AT'];

startNodeHub({
  env: process.env,
  deps: {
    updates: {
      timing: { pollMs: 100, startSettleMs: 500 },
      afterSave: async (operation) => {
        if (operation.phase !== pauseAt || operation.status === 'queued') return;
        if (operation.phase === 'prepare' && operation.tempName === undefined) return;
        process.stdout.write(`PAUSED ${operation.phase} ${operation.id}\n`);
        await new Promise(() => undefined);
      },
    },
  },
}).catch((error: unknown) => {
  console.error(`pausing hub: ${(error as Error).message}`);
  process.exit(1);
});
