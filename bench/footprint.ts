import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeNewKeyFile } from '../edge-agent/src/keys/key-file';
import { buildDockwatchImages, type DockwatchImages } from '../test/support/docker/dockwatch-images';
import { docker, freePort, inspect, socketGroup } from '../test/support/docker/image-containers';
import { startDockerd, type TestDockerd } from '../test/support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../test/support/docker/test-images';
import { type BenchContext, type Benchmark, formatBytes, markdownTable, positiveIntegerEnv } from './support/benchmark';
import { sampleProcess } from './support/proc-stats';
import { groupRss, processGroupPids } from './support/process-group';

const CONTAINERS = 10;

interface Measured {
  label: string;
  readyMs: number;
  /** The program's own process (the node that runs the hub or the agent). */
  rssBytes: number;
  /** The whole process tree the command starts (npm, tsx and node for the source run). */
  groupBytes: number;
  processes: number;
  note?: string;
}

interface Running {
  pgid?: number;
  pid: () => number;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(10);
  }
  throw new Error(`bench.footprint: ${what} not ready within ${timeoutMs} ms`);
}

function spawnGroup(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Running & { child: ChildProcess } {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: 'ignore', detached: true });
  return {
    child,
    pgid: child.pid ?? 0,
    pid: () => child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-(child.pid ?? 0), 'SIGTERM');
      await Promise.race([exited, sleep(12_000)]);
      if (child.exitCode === null) process.kill(-(child.pid ?? 0), 'SIGKILL');
    },
  };
}

/** The largest process of a group: the node that runs the program (npm, sh, tsx and esbuild's service are smaller). */
function programPid(pgid: number): number {
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

async function measure(
  label: string,
  start: () => Promise<Running>,
  ready: () => Promise<boolean>,
  idleMs: number,
  note?: string,
): Promise<Measured> {
  const started = performance.now();
  const running = await start();
  try {
    await until(ready, 60_000, label);
    const readyMs = Math.round(performance.now() - started);
    await sleep(idleMs);
    const group = running.pgid ? groupRss(running.pgid) : undefined;
    const rssBytes = sampleProcess(running.pid()).rssBytes;
    return {
      label,
      readyMs,
      rssBytes,
      groupBytes: group?.totalBytes ?? rssBytes,
      processes: group?.processes ?? 1,
      ...(note && { note }),
    };
  } finally {
    await running.stop();
  }
}

const healthy = (url: string) => async () => (await fetch(`${url}/health`)).status === 200;

export const footprint: Benchmark = {
  name: 'footprint',
  async run(ctx: BenchContext) {
    const idleMs = positiveIntegerEnv('BENCH_IDLE_SECONDS', 5) * 1000;
    const scratch = mkdtempSync(join(tmpdir(), 'dockwatch-footprint-'));
    let dockerd: TestDockerd | undefined;
    let images: DockwatchImages | undefined;
    try {
      dockerd = await startDockerd();
      const socket = dockerd.socketPath;
      ctx.log('building dist/ and the images');
      images = await buildDockwatchImages(dockerd);
      const dist = join(images.context, 'dist');
      await importBusyboxImage(dockerd.docker, { repository: 'localhost/idle', tag: '1', cmd: ['sleep', '3600'] });
      for (let i = 0; i < CONTAINERS; i += 1)
        await runContainer(dockerd.docker, { name: `idle-${i}`, image: 'localhost/idle:1' });
      const d = dockerd;
      const hubEnv = (port: number, store: string) => ({
        DD_SERVER_PORT: String(port),
        DD_SERVER_HOST: '127.0.0.1',
        DD_STORE_PATH: join(scratch, store),
        DD_WATCHER_LOCAL_SOCKET: socket,
        DD_LOG_LEVEL: 'warn',
      });
      const rows: Measured[] = [];

      // --- the hub, three ways ---------------------------------------------------------------
      let port = await freePort();
      rows.push(
        await measure(
          'hub: `node dist/hub.mjs`',
          async () => spawnGroup(process.execPath, [join(dist, 'hub.mjs')], scratch, hubEnv(port, 'dist')),
          healthy(`http://127.0.0.1:${port}`),
          idleMs,
        ),
      );
      port = await freePort();
      rows.push(
        await measure(
          'hub: `npm start` (its last step, `npm exec tsx hub/src/entry/node.ts`)',
          async () => {
            const group = spawnGroup(
              'npm',
              ['exec', '--no', '--', 'tsx', 'hub/src/entry/node.ts'],
              ctx.root,
              hubEnv(port, 'npm'),
            );
            return { ...group, pid: () => programPid(group.pgid ?? 0) };
          },
          healthy(`http://127.0.0.1:${port}`),
          idleMs,
        ),
      );
      port = await freePort();
      rows.push(
        await measure(
          'hub: image (`docker start`, host network)',
          async () => {
            await docker(d, [
              'create',
              '--name',
              'footprint-hub',
              '--network',
              'host',
              '--group-add',
              socketGroup(d),
              '-v',
              `${socket}:/var/run/docker.sock`,
              '-e',
              `DD_SERVER_PORT=${port}`,
              '-e',
              'DD_SERVER_HOST=127.0.0.1',
              '-e',
              'DD_LOG_LEVEL=warn',
              images?.hub ?? '',
            ]);
            const started = performance.now();
            await docker(d, ['start', 'footprint-hub']);
            ctx.log(`docker start returned after ${Math.round(performance.now() - started)} ms`);
            const pid = (await inspect(d, 'footprint-hub')).State.Pid;
            return { pid: () => pid, stop: async () => void (await docker(d, ['rm', '-f', 'footprint-hub'])) };
          },
          healthy(`http://127.0.0.1:${port}`),
          idleMs,
        ),
      );

      // --- the agent, three ways, each dialling a dist hub -----------------------------------
      const hubPort = await freePort();
      const hubUrl = `http://127.0.0.1:${hubPort}`;
      const hub = spawnGroup(process.execPath, [join(dist, 'hub.mjs')], scratch, {
        ...hubEnv(hubPort, 'agent-hub'),
        DD_LOCAL_WATCHER: 'false',
      });
      try {
        await until(healthy(hubUrl), 30_000, 'hub for the agents');
        const agentRows: Measured[] = [];
        for (const [index, way] of (['dist', 'npm', 'image'] as const).entries()) {
          const name = `footprint-${way}`;
          const keyDir = join(scratch, `key-${way}`);
          const keyFile = join(keyDir, 'agent.key');
          mkdirSync(keyDir);
          const key = await writeNewKeyFile(keyFile);
          // The image runs as uid 1000 and keeps its link status file beside the key.
          chownSync(keyDir, 1000, 1000);
          chownSync(keyFile, 1000, 1000);
          const registered = await fetch(`${hubUrl}/api/v1/edge/keys`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ publicKey: Buffer.from(key.publicKey).toString('base64'), label: name }),
          });
          if (registered.status !== 201) throw new Error(`bench.footprint: key registration ${registered.status}`);
          const connected = async () => {
            const { data } = (await (await fetch(`${hubUrl}/api/v1/agents`)).json()) as {
              data: { name: string; connected: boolean }[];
            };
            return data.some((agent) => agent.name === name && agent.connected);
          };
          const agentEnv = { DOCKER_HOST: `unix://${socket}`, DD_LOG_LEVEL: 'warn' };
          const args = ['--hub', `ws://127.0.0.1:${hubPort}`, '--key', keyFile, '--name', name];
          const label = [
            'agent: `node dist/agent.mjs`',
            'agent: `npm run agent` (its last step, `npm exec tsx edge-agent/src/main.ts`)',
            'agent: image (`docker start`, host network)',
          ][index] as string;
          agentRows.push(
            await measure(
              label,
              async () => {
                if (way === 'dist')
                  return spawnGroup(process.execPath, [join(dist, 'agent.mjs'), ...args], scratch, agentEnv);
                if (way === 'npm') {
                  const group = spawnGroup(
                    'npm',
                    ['exec', '--no', '--', 'tsx', 'edge-agent/src/main.ts', ...args],
                    ctx.root,
                    agentEnv,
                  );
                  return { ...group, pid: () => programPid(group.pgid ?? 0) };
                }
                await docker(d, [
                  'create',
                  '--name',
                  name,
                  '--network',
                  'host',
                  '--group-add',
                  socketGroup(d),
                  '-v',
                  `${socket}:/var/run/docker.sock`,
                  '-v',
                  `${keyDir}:/app/key`,
                  '-e',
                  'DD_LOG_LEVEL=warn',
                  images?.agent ?? '',
                  '--hub',
                  `ws://127.0.0.1:${hubPort}`,
                  '--key',
                  '/app/key/agent.key',
                  '--name',
                  name,
                ]);
                await docker(d, ['start', name]);
                const pid = (await inspect(d, name)).State.Pid;
                return { pid: () => pid, stop: async () => void (await docker(d, ['rm', '-f', name])) };
              },
              connected,
              idleMs,
            ),
          );
        }
        rows.push(...agentRows);
      } finally {
        await hub.stop();
      }

      const load = loadavg().map((value) => value.toFixed(1));
      const sizeOf = async (reference: string) => (await d.docker.getImage(reference).inspect()).Size;
      const [hubSize, agentSize, baseSize] = await Promise.all([
        sizeOf(images.hub),
        sizeOf(images.agent),
        sizeOf(images.base),
      ]);
      const table = markdownTable(
        ['Run', 'ready after', 'program RSS (idle)', 'process tree RSS (idle)', 'processes'],
        rows.map((row) => [
          row.label,
          `${row.readyMs} ms`,
          formatBytes(row.rssBytes),
          formatBytes(row.groupBytes),
          String(row.processes),
        ]),
        ['left', 'right', 'right', 'right', 'right'],
      );
      const sizes = markdownTable(
        ['Image', 'size', 'above the base'],
        [
          ['hub (`--target hub`)', formatBytes(hubSize), formatBytes(hubSize - baseSize)],
          ['agent (`--target agent`)', formatBytes(agentSize), formatBytes(agentSize - baseSize)],
          ['base (this machine’s node + its libraries + busybox)', formatBytes(baseSize), ''],
        ],
        ['left', 'right', 'right'],
      );
      return {
        title: 'Footprint: production build, source run and images',
        markdown: [
          'Idle memory and start-up time of the hub and the edge agent run three ways: the production',
          'build (`npm run build`, `node dist/*.mjs`), the source run `npm start` / `npm run agent` use',
          '(tsx transpiling at run time; measured as `npm exec tsx ...`, the same npm → tsx → node tree),',
          'and the container images (`Dockerfile`) on a test dockerd built from this machine’s Node.',
          `Each watches a dockerd with ${CONTAINERS} containers, file store, log level warn, anonymous.`,
          '"Ready" is from the spawn (for the image: from `docker start`) to the first 200 of `/health`, for',
          'an agent to the hub listing it connected. RSS is read from `/proc` after',
          `${idleMs / 1000} s idle (\`BENCH_IDLE_SECONDS\`); "program" is the node process running the code`,
          '(for the image, the container’s PID 1), "process tree" adds npm and tsx.',
          `Load average at the end of the run: ${load.join(', ')} (1, 5, 15 min) on ${ctx.machine.cores} cores: start-up`,
          'times stretch with other load (CPU-bound parsing and compiling); compare rows of one run.',
          '',
          table,
          '',
          sizes,
          '',
          '- The images hold the bundle only (no node_modules); `docker image inspect` sizes, uncompressed.',
          '  The official `node:20-bookworm-slim` base (the public default) is not reachable here, so its size',
          '  is not measured; the hub’s own layers are the "above the base" column.',
        ].join('\n'),
      };
    } finally {
      images?.cleanup();
      await dockerd?.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
