import { errorMessage } from '../../../shared/error-message';
import { prefetchCheckListing } from '../adapter/node/check-listing';

const USAGE = `Usage: dockwatch <command>

Commands:
  check     check images for newer versions once, no server (dockwatch check --help)
`;

/** `dockwatch` from the build (`node dist/cli.mjs check …`) and a checkout (`npm run check -- …`). */
async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'check') {
    // `--docker`'s listing is asked for before the command's modules load: the Engine lists a
    // thousand containers in about the time they take to load (listing-prefetch.ts, issue 29).
    const listing = prefetchCheckListing(args, process.env);
    const { runCheckCommand } = await import('../adapter/node/check-command');
    return runCheckCommand(args, process.env, undefined, listing);
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 64 : 0;
  }
  process.stderr.write(`dockwatch: unknown command ${command}\n${USAGE}`);
  return 64;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`dockwatch: ${errorMessage(error)}\n`);
    process.exitCode = 2;
  },
);
