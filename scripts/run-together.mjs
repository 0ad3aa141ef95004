// Runs npm scripts side by side, each one's output printed whole once it ends (in the order given,
// never interleaved), and fails when any of them fails. `npm test` runs its checks so: Biome and the
// two type checks are single-threaded, and one after the other they left a core idle for half a
// minute of every run (issue 30, item 5).
//
//   node scripts/run-together.mjs lint typecheck:core typecheck:node
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Runs `npm run --silent <name>` for each name at once; resolves with each one's exit code and output. */
export function runTogether(names, { cwd = process.cwd() } = {}) {
  return Promise.all(
    names.map(
      (name) =>
        new Promise((resolve) => {
          const started = Date.now();
          const child = spawn('npm', ['run', '--silent', name], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
          const output = [];
          child.stdout.on('data', (chunk) => output.push(chunk));
          child.stderr.on('data', (chunk) => output.push(chunk));
          child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
          child.on('close', (code, signal) =>
            resolve({
              name,
              code: code ?? 1,
              signal,
              seconds: (Date.now() - started) / 1000,
              output: Buffer.concat(output),
            }),
          );
        }),
    ),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.slice(2);
  if (names.length === 0) {
    console.error('usage: node scripts/run-together.mjs <npm script>...');
    process.exit(2);
  }
  const results = await runTogether(names);
  for (const result of results) {
    const outcome = result.code === 0 ? 'passed' : `failed (${result.signal ?? `exit ${result.code}`})`;
    process.stdout.write(`> npm run ${result.name}: ${outcome} in ${result.seconds.toFixed(1)} s\n`);
    process.stdout.write(result.output);
  }
  process.exit(results.some((result) => result.code !== 0) ? 1 : 0);
}
