/**
 * The hub as hub/src/entry/node.ts runs it (its signal handling included), with its injected clock
 * (`deps.now`, which the scheduler, the outbox, sessions, keys and audit read) set off from the
 * host's by the number of milliseconds in the file STEPPED_CLOCK_FILE: read at start, and again on
 * SIGUSR2. The soak steps the hub's clock this way, since it must not step the host's; a restart
 * reads the same file, so the step outlives a SIGKILL. Timers and Node's own Date.now() elsewhere
 * are not stepped. Optional fast notification retries: NOTIFY_TEST_ATTEMPTS and NOTIFY_TEST_DELAY_MS.
 * These variables are read here only, never by the hub itself.
 */
import { readFileSync } from 'node:fs';
import { startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { stopOnSignals } from '../../hub/src/adapter/node/stop-on-signals';

const clockFile = process.env['STEPPED_CLOCK_FILE'];
const attempts = process.env['NOTIFY_TEST_ATTEMPTS'];
const delayMs = process.env['NOTIFY_TEST_DELAY_MS'];

const readOffset = (): number => {
  if (clockFile === undefined) return 0;
  try {
    return Number(readFileSync(clockFile, 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
};
let offsetMs = readOffset();
process.on('SIGUSR2', () => {
  offsetMs = readOffset();
  process.stdout.write(`${JSON.stringify({ msg: 'clock stepped', offsetMs })}\n`);
});

startNodeHub({
  env: process.env,
  deps: {
    now: () => Date.now() + offsetMs,
    ...(attempts !== undefined && delayMs !== undefined
      ? {
          notificationTiming: {
            maxAttempts: Number(attempts),
            baseDelayMs: Number(delayMs),
            maxDelayMs: Number(delayMs) * 4,
          },
        }
      : {}),
  },
})
  .then(stopOnSignals)
  .catch((error: unknown) => {
    console.error(`stepped-clock hub: ${(error as Error).message}`);
    process.exit(1);
  });
