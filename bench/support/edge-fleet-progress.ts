/**
 * The edge benchmark's fleet against one hub process, reporting every 5 s until synced or given up:
 * containers listed, the list's latency (a rough event-loop probe), hub RSS, sessions the load
 * generator saw end. For large fleets, where the benchmark's 250 ms `GET /api/v1/agents` poll would
 * itself load the hub, and for profiling (`HUB_NODE_OPTIONS`, e.g. `--require` of a profiler).
 *
 *   BENCH_EDGE_AGENTS=10000 BENCH_EDGE_STORE=fs npx tsx bench/support/edge-fleet-progress.ts
 *
 * Each line also gives the hub's event-loop delay over its last 5 s window (p99 and max, from
 * loop-delay-probe.cjs loaded into the hub), and the end the worst window of the burst.
 *
 * Knobs: BENCH_EDGE_AGENTS (10,000), BENCH_EDGE_CONTAINERS (20 an agent), BENCH_EDGE_STORE (fs | memory | redis: a throwaway redis-server
 * on a unix socket, test/support/redis-server.ts), BENCH_EDGE_CONNECT_CONCURRENCY
 * (all at once), BENCH_EDGE_LIMIT_SECONDS (300), BENCH_EDGE_SETTLE_SECONDS (10, after the sync), HUB_NODE_OPTIONS,
 * BENCH_EDGE_HUB (`built`, the default: the production build as `npm start` runs it; `source`: tsx),
 * BENCH_EDGE_PROFILE_DIR (the built hub's V8 CPU profile, written there as it exits), BENCH_EDGE_KEEP_DIR
 * (the hub's store left on disk, its path logged).
 *
 * The container count is asked for every second (`?limit=1`: a few milliseconds of the hub's time),
 * so "synced" is exact to a second; a line is logged every fifth answer.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '../../test/support/redis-server';
import { fleetKeys, startFleetHub, startGenerator, waitForEvent } from '../edge-agents';
import { waitForQuietMachine } from './proc-stats';

const env = process.env;
const agents = Number(env.BENCH_EDGE_AGENTS ?? 10_000);
const containersPerAgent = Number(env.BENCH_EDGE_CONTAINERS ?? 20);
const store = env.BENCH_EDGE_STORE ?? 'fs';
const started = Date.now();
const log = (message: string) => console.log(`${((Date.now() - started) / 1000).toFixed(1)} s ${message}`);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

const fleet = await fleetKeys(agents);
// The fs store's filesystem syncs wait for every dirty page of the disk: the previous run's store
// (some 60,000 files written, then deleted) is flushed first, and the cores let settle, so that
// runs measure the hub rather than what the one before left behind.
const flushStarted = Date.now();
spawnSync('sync');
const quiet = await waitForQuietMachine();
log(
  `disk flushed in ${Date.now() - flushStarted - Math.round(quiet.waitedMs)} ms; machine ${Math.round(quiet.busyShare * 100)} % busy after ${Math.round(quiet.waitedMs)} ms`,
);
const dir = await mkdtemp(join(tmpdir(), 'dockwatch-edge-progress-'));
// The disk's pace for what the fs store does most in the burst (new small files, 64 in flight, then
// one filesystem sync): on this machine's virtual disk it ranged from thousands to about a thousand
// files a second over a day of runs, and the fs store's sync time with it.
const diskRate = await smallFileRate(join(dir, 'disk-probe'));
log(`disk: ${diskRate.toFixed(0)} new 2 KiB files a second (2,000, 64 in flight, then sync -f)`);
const redis = store === 'redis' ? await startRedisServer() : undefined;
const loopDelayFile = join(dir, 'loop-delay.jsonl');
const probe = join(dirname(fileURLToPath(import.meta.url)), 'loop-delay-probe.cjs');
const runs = env.BENCH_EDGE_HUB === 'source' ? 'source' : 'built';
const hub = await startFleetHub(
  dir,
  fleet,
  store,
  {
    NODE_OPTIONS: [`--require ${probe}`, env.HUB_NODE_OPTIONS].filter(Boolean).join(' '),
    LOOP_DELAY_FILE: loopDelayFile,
    ...(redis && { DD_STORE_URL: redis.url }),
  },
  runs,
  env.BENCH_EDGE_PROFILE_DIR,
);

interface LoopWindow {
  /** The line of the whole burst's histogram, not a window's. */
  span?: boolean;
  t: number;
  count: number;
  p50: number;
  p99: number;
  max: number;
  /** MiB at the window's end (not on the span's line). */
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
}
/** The probe's windows so far (the file may not exist yet, or end in a line being written). */
async function loopWindows(): Promise<LoopWindow[]> {
  const text = await readFile(loopDelayFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map((line) => JSON.parse(line) as LoopWindow);
}
const loopLine = (window: LoopWindow | undefined) =>
  window
    ? `loop p99 ${window.p99} ms, max ${window.max} ms${window.heapUsed === undefined ? '' : `; heap ${window.heapUsed} of ${window.heapTotal} MiB, external ${window.external} MiB`}`
    : 'loop: no window yet';
log(
  `${store} hub (${runs === 'built' ? 'node dist/hub.mjs' : 'tsx, from the sources'}) ${hub.url} (pid ${hub.pid}), ${mib(hub.sample().rssBytes)}; ${agents} keys registered`,
);
const planFile = join(dir, 'plan.json');
await writeFile(
  planFile,
  JSON.stringify({
    hubUrl: hub.url,
    agents: fleet.map(({ name, keyId, secretKey }) => ({ name, keyId, secretKey })),
    containersPerAgent,
    connectConcurrency: Number(env.BENCH_EDGE_CONNECT_CONCURRENCY ?? agents),
  }),
);
const generator = startGenerator(process.cwd(), planFile);
const generatorStarted = await waitForEvent(generator.events, 'started', 30_000);
// The probe's one histogram over the burst: from here to the sync.
await writeFile(`${loopDelayFile}.start`, '');
const deadline = Date.now() + Number(env.BENCH_EDGE_LIMIT_SECONDS ?? 300) * 1000;
let peakRss = 0;
try {
  for (let poll = 0; ; poll++) {
    const asked = Date.now();
    // In the opening burst the listen queue is full and a connect can time out: that is a figure too.
    const total = await fetch(`${hub.url}/api/v1/containers?limit=1`, { signal: AbortSignal.timeout(30_000) })
      .then(async (response) => ((await response.json()) as { total: number }).total)
      .catch((error: unknown) => `no answer (${(error as Error).cause ?? error})`);
    const rss = hub.sample().rssBytes;
    peakRss = Math.max(peakRss, rss);
    const ended = generator.events.filter((event) => event.event === 'closed').length;
    const windows = await loopWindows();
    const synced = total === agents * containersPerAgent;
    if (poll % 5 === 0 || synced)
      log(
        `${total} containers (list ${Date.now() - asked} ms), hub ${mib(rss)}, ${ended} sessions ended, ${loopLine(windows.at(-1))}`,
      );
    if (synced) {
      log(
        `synced ${((Date.now() - generatorStarted.t) / 1000).toFixed(1)} s after the generator started; peak ${mib(peakRss)}`,
      );
      await writeFile(`${loopDelayFile}.stop`, '');
      const span = await (async () => {
        for (let tries = 0; tries < 50; tries++) {
          const found = (await loopWindows()).find((line) => line.span);
          if (found) return found;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return undefined;
      })();
      log(
        span
          ? `event loop over the whole burst (generator start to sync): p50 ${span.p50} ms, p99 ${span.p99} ms, max ${span.max} ms, ${span.count} samples`
          : 'event loop over the whole burst: the probe did not answer',
      );
      // Windows that ended after the generator started, up to the sync: the burst.
      const burst = windows.filter((window) => !window.span && window.t > generatorStarted.t);
      const worst = burst.reduce<LoopWindow | undefined>((a, b) => (a && a.p99 >= b.p99 ? a : b), undefined);
      const p99s = burst.map((window) => window.p99).sort((a, b) => a - b);
      log(
        `event loop in the burst: ${burst.length} windows, p99 median ${p99s[p99s.length >> 1] ?? '–'} ms, worst window ${loopLine(worst)}`,
      );
      log(`  each window's p99 / max: ${burst.map((window) => `${window.p99}/${window.max}`).join(', ')} ms`);
      // "RSS after the sync" (issue 18): the heap's garbage from the burst given 10 s to be collected
      // (longer with BENCH_EDGE_SETTLE_SECONDS: time to take a heap snapshot, HUB_NODE_OPTIONS=--heapsnapshot-signal).
      await new Promise((resolve) => setTimeout(resolve, Number(env.BENCH_EDGE_SETTLE_SECONDS ?? 10) * 1000));
      log(`hub RSS 10 s after the sync: ${mib(hub.sample().rssBytes)}`);
      break;
    }
    if (Date.now() > deadline) {
      log(`gave up; peak ${mib(peakRss)}`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, asked + 1_000 - Date.now())));
  }
} finally {
  // Why sessions ended, by close code and reason, and when: the burst's losses are this benchmark's open question.
  const ends = new Map<string, { count: number; first: number; last: number }>();
  for (const event of generator.events) {
    if (event.event !== 'closed') continue;
    const fields = event as unknown as { code: number; reason: string; t: number; welcomed?: boolean };
    const key = `${fields.code} ${fields.reason || '(no reason)'} ${fields.welcomed ? 'after' : 'before'} the welcome`;
    const seen = ends.get(key) ?? { count: 0, first: fields.t, last: fields.t };
    ends.set(key, {
      count: seen.count + 1,
      first: Math.min(seen.first, fields.t),
      last: Math.max(seen.last, fields.t),
    });
  }
  for (const [key, { count, first, last }] of ends)
    log(
      `ended ${count}× ${key}, ${((first - generatorStarted.t) / 1000).toFixed(1)}–${((last - generatorStarted.t) / 1000).toFixed(1)} s`,
    );
  generator.child.kill('SIGTERM');
  await hub.stop();
  await redis?.stop();
  if (env.BENCH_EDGE_KEEP_DIR) log(`kept ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}

/** New 2 KiB files a second in `probeDir` (made, then removed), the filesystem sync included. */
async function smallFileRate(probeDir: string): Promise<number> {
  await mkdir(probeDir);
  const files = 2_000;
  const body = 'x'.repeat(2048);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < files) await writeFile(join(probeDir, `f${next++}`), body, { flag: 'wx' });
    }),
  );
  spawnSync('sync', ['-f', probeDir]);
  const seconds = (performance.now() - started) / 1000;
  await rm(probeDir, { recursive: true, force: true });
  return files / seconds;
}
