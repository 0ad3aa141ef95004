import { ConfigError } from '../../../shared/config/config-error';
import { startNodeHub } from '../adapter/node/start-node-hub';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let running: Awaited<ReturnType<typeof startNodeHub>>;
  try {
    running = await startNodeHub({ env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`hub: configuration error: ${error.message}`);
      process.exit(78);
    }
    console.error(`hub: failed to start: ${(error as Error).message}`);
    process.exit(1);
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const { logger } = running.hub.parts;
    const began = Date.now();
    logger.info('shutting down', { signal });
    // The drain's own limits end well inside this (start-node-hub.ts SHUTDOWN_LIMITS): reaching it is a fault.
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
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
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
