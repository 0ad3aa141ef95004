import { ConfigError } from '../../../shared/config/config-error';
import { errorMessage } from '../../../shared/error-message';
import { prefetchCheckListing } from '../adapter/node/check-listing';
import { runCommandLineMode } from '../adapter/node/command-line-modes';
import type { startNodeHub } from '../adapter/node/start-node-hub';
import { stopOnSignals } from '../adapter/node/stop-on-signals';

async function main(): Promise<void> {
  // `check` (docs/sources.md "One command"): the hub image's entrypoint runs the one-shot check, no server.
  if (process.argv[2] === 'check') {
    const args = process.argv.slice(3);
    // Asked for before the command loads: the Engine lists while it does.
    const listing = prefetchCheckListing(args, process.env);
    const { runCheckCommand } = await import('../adapter/node/check-command');
    process.exitCode = await runCheckCommand(args, process.env, undefined, listing);
    return;
  }
  // `--version` and `--healthcheck` (the container images' HEALTHCHECK) answer and exit; no hub starts.
  const exitCode = await runCommandLineMode(process.argv.slice(2), process.env);
  if (exitCode !== undefined) process.exit(exitCode);
  // The short-lived helper container of a self-update (docs/updates.md "Self-update"): it swaps the hub's container and exits.
  if (process.argv.includes('--self-update-helper')) {
    const { runSelfUpdateHelper } = await import('../adapter/node/self-update-helper');
    process.exit(await runSelfUpdateHelper(process.env));
  }
  let running: Awaited<ReturnType<typeof startNodeHub>>;
  try {
    // Imported here, so that `--version` and `--healthcheck` do not load (and compile) the whole hub.
    const { startNodeHub } = await import('../adapter/node/start-node-hub');
    running = await startNodeHub({ env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`hub: configuration error: ${error.message}`);
      process.exit(78);
    }
    console.error(`hub: failed to start: ${errorMessage(error)}`);
    process.exit(1);
  }
  stopOnSignals(running);
}

void main();
