import type { NodeHub } from './start-node-hub';

/** The entry's outer bound: the drain's own limits (SHUTDOWN_LIMITS) end well inside it, so reaching it is a fault. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * SIGTERM (docker stop) and SIGINT (Ctrl-C) close the hub (NodeHub.close: drain, stop, flush) and
 * exit 0; a failed or overdue close exits 1. A second signal changes nothing: the first one is
 * already on its way, within its deadline.
 */
export function stopOnSignals(running: NodeHub): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const { logger } = running.hub.parts;
    const began = Date.now();
    logger.info('shutting down', { signal });
    setTimeout(() => {
      logger.error('shutdown overdue: exiting', { signal, ms: Date.now() - began });
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    running.close().then(
      () => {
        logger.info('stopped', { signal, ms: Date.now() - began });
        process.exit(0);
      },
      (error: unknown) => {
        logger.error('shutdown failed', { signal, error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
