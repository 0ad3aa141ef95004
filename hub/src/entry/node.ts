import { ConfigError } from '../../../shared/config/config-error';
import { runCommandLineMode } from '../adapter/node/command-line-modes';
import { startNodeHub } from '../adapter/node/start-node-hub';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  // `--version` and `--healthcheck` (the container images' HEALTHCHECK) answer and exit; no hub starts.
  const exitCode = await runCommandLineMode(process.argv.slice(2), process.env);
  if (exitCode !== undefined) process.exit(exitCode);
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
    running.hub.parts.logger.info('shutting down', { signal });
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
