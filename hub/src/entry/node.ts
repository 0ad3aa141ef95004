import { ConfigError } from '../../../shared/config/config-error';
import { startNodeHub } from '../adapter/node/start-node-hub';
import { stopOnSignals } from '../adapter/node/stop-on-signals';

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
  stopOnSignals(running);
}

void main();
