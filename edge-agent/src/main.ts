import os from 'node:os';
import packageJson from '../../package.json' with { type: 'json' };
import { ConfigError } from '../../shared/config/config-error';
import { checkAgentHealth } from './cli/healthcheck';
import { runKeygen } from './cli/keygen';
import { parseArguments, USAGE } from './cli/parse-args';
import { startAgent } from './cli/run-agent';
import { KeyFileError } from './keys/key-file';

/** sysexits EX_CONFIG, as the hub exits on a bad variable. */
const EXIT_CONFIG = 78;
const SHUTDOWN_GRACE_MS = 10_000;

/** The edge agent's command line: `npm run agent -- keygen ...`, `-- --hub ... --key ...` and `-- --listen PORT`. */
async function main(): Promise<void> {
  try {
    const command = parseArguments(process.argv.slice(2));
    if (command.command === 'help') {
      console.log(USAGE);
      return;
    }
    if (command.command === 'version') {
      console.log(packageJson.version);
      return;
    }
    if (command.command === 'healthcheck') {
      const problem = await checkAgentHealth(command, process.env);
      if (problem !== undefined) console.error(`edge agent: unhealthy: ${problem}`);
      process.exit(problem === undefined ? 0 : 1);
    }
    if (command.command === 'keygen') {
      const { registration, text } = await runKeygen(command, os.hostname());
      process.stdout.write(command.json ? `${JSON.stringify(registration)}\n` : text);
      return;
    }
    // Listen mode's server and tag policies are imported only when it is chosen (docs/benchmarks.md "Footprint").
    const agent =
      command.command === 'listen'
        ? await (await import('./cli/run-listen')).startListenAgent(command, { env: process.env })
        : await startAgent(command, { env: process.env });
    let stopping = false;
    const shutdown = () => {
      if (stopping) return;
      stopping = true;
      setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
      agent.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`edge agent: configuration error: ${error.message}`);
      process.exit(EXIT_CONFIG);
    }
    if (error instanceof KeyFileError) {
      console.error(`edge agent: --key: ${error.message}`);
      process.exit(EXIT_CONFIG);
    }
    console.error(`edge agent: ${(error instanceof Error && error.stack) || String(error)}`);
    process.exit(1);
  }
}

void main();
