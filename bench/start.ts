import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchContext, type Benchmark, formatBytes, markdownTable, positiveIntegerEnv } from './support/benchmark';
import { sampleProcess } from './support/proc-stats';
import { groupRss, processGroupPids } from './support/process-group';

interface Way {
  label: string;
  command: string;
  args: string[];
}

interface Measured {
  label: string;
  readyMs: number;
  hubBytes: number;
  treeBytes: number;
  processes: number;
  /** The command lines left running, parent first. */
  tree: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

const commandOf = (pid: number) => {
  try {
    return spawnSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
  } catch {
    return '?';
  }
};

/** The node process that answers: the group's largest (npm, sh and tsx's esbuild service are smaller). */
function hubPid(pgid: number): number {
  let largest = { pid: pgid, rss: -1 };
  for (const pid of processGroupPids(pgid)) {
    const rss = (() => {
      try {
        return sampleProcess(pid).rssBytes;
      } catch {
        return -1;
      }
    })();
    if (rss > largest.rss) largest = { pid, rss };
  }
  return largest.pid;
}

async function measure(way: Way, root: string, scratch: string, idleMs: number): Promise<Measured> {
  const port = await freePort();
  const env = {
    ...process.env,
    DD_SERVER_PORT: String(port),
    DD_SERVER_HOST: '127.0.0.1',
    DD_STORE_PATH: mkdtempSync(join(scratch, 'store-')),
    DD_LOCAL_WATCHER: 'false',
    DD_LOG_LEVEL: 'warn',
  };
  const started = performance.now();
  const child = spawn(way.command, way.args, { cwd: root, env, stdio: 'ignore', detached: true });
  const pgid = child.pid ?? 0;
  try {
    const deadline = started + 60_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) break;
      if (performance.now() > deadline || child.exitCode !== null)
        throw new Error(`bench.start: ${way.label} not ready (exit ${child.exitCode})`);
      await sleep(10);
    }
    const readyMs = Math.round(performance.now() - started);
    await sleep(idleMs);
    const group = groupRss(pgid);
    const pids = processGroupPids(pgid).sort((a, b) => a - b);
    return {
      label: way.label,
      readyMs,
      hubBytes: sampleProcess(hubPid(pgid)).rssBytes,
      treeBytes: group.totalBytes,
      processes: group.processes,
      tree: pids.map(commandOf).join(' → '),
    };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-pgid, 'SIGTERM');
    await Promise.race([exited, sleep(12_000)]);
    if (child.exitCode === null) process.kill(-pgid, 'SIGKILL');
  }
}

/**
 * `npm start` as a user runs it (issue 30 item 2): ready time and idle memory of the hub process and
 * of everything the command leaves running, beside the source run it replaced (tsx, in the same run).
 */
export const start: Benchmark = {
  name: 'start',
  async run(ctx: BenchContext) {
    const idleMs = positiveIntegerEnv('BENCH_IDLE_SECONDS', 5) * 1000;
    const rounds = positiveIntegerEnv('BENCH_START_ROUNDS', 3);
    const scratch = mkdtempSync(join(tmpdir(), 'dockwatch-start-'));
    try {
      // dist/ up to date first: the rows measure a start, the build is timed on its own below.
      let began = performance.now();
      const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ctx.root, encoding: 'utf8' });
      if (built.status !== 0) throw new Error(`bench.start: build failed: ${built.stderr}`);
      const buildMs = Math.round(performance.now() - began);
      began = performance.now();
      spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ctx.root });
      const checkMs = Math.round(performance.now() - began);
      const ways: Way[] = [
        { label: '`npm start` (builds if stale, then `exec node dist/hub.mjs`)', command: 'npm', args: ['start'] },
        { label: '`node dist/hub.mjs` (no npm)', command: process.execPath, args: ['dist/hub.mjs'] },
        {
          label: 'before: `npm exec tsx hub/src/entry/node.ts` (the last step of the old `npm start`)',
          command: 'npm',
          args: ['exec', '--no', '--', 'tsx', 'hub/src/entry/node.ts'],
        },
      ];
      const rows: Measured[][] = ways.map(() => []);
      for (let round = 0; round < rounds; round++)
        for (const [index, way] of ways.entries()) {
          const row = await measure(way, ctx.root, scratch, idleMs);
          ctx.log(
            `${way.label}: ready ${row.readyMs} ms, hub ${formatBytes(row.hubBytes)}, tree ${formatBytes(row.treeBytes)}`,
          );
          rows[index]?.push(row);
        }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
      const table = markdownTable(
        [
          'Command',
          'ready after (median)',
          'hub process RSS (idle)',
          'everything left running (RSS)',
          'processes left running',
        ],
        rows.map((runs, index) => {
          const mid = (pick: (row: Measured) => number) => median(runs.map(pick));
          return [
            ways[index]?.label ?? '',
            `${mid((row) => row.readyMs)} ms`,
            formatBytes(mid((row) => row.hubBytes)),
            formatBytes(mid((row) => row.treeBytes)),
            `${runs[0]?.processes ?? 0}: ${runs[0]?.tree ?? ''}`,
          ];
        }),
        ['left', 'right', 'right', 'right', 'left'],
      );
      const load = loadavg().map((value) => value.toFixed(1));
      return {
        title: '`npm start`: the production build, against the tsx run it replaced',
        markdown: [
          `Each command started ${rounds} times in turn (\`BENCH_START_ROUNDS\`), from the repository, anonymous, file store`,
          'in a temp dir, no local watcher, log level warn. "Ready": from the spawn to the first 200 of `/health`.',
          `RSS from \`/proc\` after ${idleMs / 1000} s idle (\`BENCH_IDLE_SECONDS\`), medians; "hub process" is the node that`,
          'serves, "everything left running" sums the process group the command started.',
          `Load average at the end: ${load.join(', ')} (1, 5, 15 min) on ${ctx.machine.cores} cores.`,
          '',
          table,
          '',
          `- \`npm run build\` (\`node scripts/build.mjs\`: hub, agent, CLI and UI bundles, notices): ${buildMs} ms here; the`,
          `  \`--if-stale\` check \`npm start\` runs first, with dist/ up to date: ${checkMs} ms (a node start and a stat of each`,
          '  file the last build read, dist/.build-inputs.json).',
          '- npm itself stays the parent: it waits for its script, and Node has no exec to hand it the terminal.',
          '  `exec` makes the hub replace the script’s shell, so what is left is npm and the hub; npm’s own RSS',
          '  (the difference between the columns) is outside the hub’s reach. Run `node dist/hub.mjs` (or the',
          '  image) to leave the hub alone.',
        ].join('\n'),
      };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
