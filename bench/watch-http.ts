import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SseParser } from '../test/support/sse-client';
import { type BenchContext, type Benchmark, formatCount, markdownTable, positiveIntegerEnv } from './support/benchmark';
import { type BuiltHub, startBuiltHub } from './support/built-hub';
import { summarizeProfile, topSelf } from './support/cpu-profile';
import { createContainers, removeContainers } from './support/docker-fleet';
import { publishRepositories, REGISTRY_LATENCY_MS, startLatencyBed } from './support/latency-bed';
import { registryFloor } from './support/registry-floor';

const LATENCY_MS = REGISTRY_LATENCY_MS;
const FLOOR_IN_FLIGHT = 16;
const PARALLELISM = 8;
/** A scheduled cycle starts on a quiet hub: the pause after each warm cycle lets its listing and writes settle. */
const SETTLE_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function lastRunAt(hub: BuiltHub): Promise<number | undefined> {
  const response = await fetch(`${hub.url}/api/v1/watchers`);
  const body = (await response.json()) as { data: { metadata: { lastRunAt?: string } }[] };
  const at = body.data[0]?.metadata.lastRunAt;
  return at === undefined ? undefined : Date.parse(at);
}

async function firstCycle(hub: BuiltHub): Promise<void> {
  const deadline = Date.now() + 600_000;
  while ((await lastRunAt(hub)) === undefined) {
    if (Date.now() > deadline) throw new Error('watch-http: the first cycle did not end in 10 minutes');
    await sleep(100);
  }
}

/** The events the hub publishes on its UI stream, counted by type from the moment it opens. */
async function countEvents(hub: BuiltHub): Promise<{ counts: Map<string, number>; close(): void }> {
  const controller = new AbortController();
  const response = await fetch(`${hub.url}/api/v1/events/ui`, {
    headers: { accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (!response.ok || !response.body) throw new Error(`watch-http: the event stream answered ${response.status}`);
  const counts = new Map<string, number>();
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const event of parser.push(decoder.decode(value, { stream: true })))
        if (event.event !== 'dd:connected') counts.set(event.event, (counts.get(event.event) ?? 0) + 1);
    }
  })().catch(() => undefined);
  return { counts, close: () => controller.abort() };
}

/** Each file of the store directory with its size and modification time: what changed between two is what was written. */
async function storeFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path).catch(() => undefined);
    if (info) files.set(path, `${info.size}:${info.mtimeMs}`);
  }
  return files;
}

const changedFiles = (before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>) =>
  [...after].filter(([path, stamp]) => before.get(path) !== stamp).length +
  [...before.keys()].filter((path) => !after.has(path)).length;

interface WarmRun {
  floorMs: number;
  answerMs: number;
  bytes: number;
  registryRequests: number;
  hubCpuMs: number;
}

/** `POST /api/v1/containers/watch` as the UI's "check now" calls it (gzip accepted, as fetch does), timed to its last byte. */
async function warmCycle(hub: BuiltHub, expected: number, registry: { reset(): void; total(): number }) {
  registry.reset();
  const before = hub.sample();
  const started = performance.now();
  const response = await fetch(`${hub.url}/api/v1/containers/watch`, { method: 'POST' });
  const text = await response.text();
  const answerMs = performance.now() - started;
  if (!response.ok) throw new Error(`watch-http: the watch answered ${response.status}: ${text.slice(0, 300)}`);
  const total = (JSON.parse(text) as { total: number }).total;
  if (total !== expected) throw new Error(`watch-http: the watch listed ${total} containers, not ${expected}`);
  const after = hub.sample();
  return {
    answerMs,
    bytes: text.length,
    registryRequests: registry.total(),
    hubCpuMs: after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs,
  };
}

interface Bed {
  dockerSocket: string;
  references: string[];
  count: number;
  registry: { reset(): void; total(): number };
}

interface Measured {
  label: string;
  runs: WarmRun[];
  written: number;
  events: Map<string, number>;
}

/** One hub from `root` on the bed: its first cycle, then `repeats` warm ones, each after a floor round. */
async function measureHub(
  ctx: BenchContext,
  root: string,
  label: string,
  bed: Bed,
  repeats: number,
): Promise<Measured> {
  const scratch = await mkdtemp(join(tmpdir(), 'dockwatch-watch-http-'));
  const store = join(scratch, 'data');
  const profileDir = process.env['BENCH_WATCH_PROFILE'] === '1' ? join(scratch, 'profile') : undefined;
  const hub = await startBuiltHub(
    root,
    { DD_STORE_PATH: store, DD_WATCHER_LOCAL_SOCKET: bed.dockerSocket, DD_WATCHER_LOCAL_JITTER: '0' },
    { profileDir },
  );
  try {
    await firstCycle(hub);
    // One warm cycle before measuring: on a fresh store it stores the first check-time stamp.
    await warmCycle(hub, bed.count, bed.registry);
    ctx.log(`${label}: first cycles done; warm cycles`);
    await sleep(2_000);
    const events = await countEvents(hub);
    const storeBefore = await storeFiles(store);
    const runs: WarmRun[] = [];
    const warmStarted = performance.now();
    for (let run = 0; run < repeats; run++) {
      const floorMs = await registryFloor(bed.references, FLOOR_IN_FLIGHT);
      const cycle = await warmCycle(hub, bed.count, bed.registry);
      runs.push({ floorMs, ...cycle });
      ctx.log(`${label}: floor ${floorMs.toFixed(0)} ms, answer ${cycle.answerMs.toFixed(0)} ms`);
      await sleep(SETTLE_MS);
    }
    const written = changedFiles(storeBefore, await storeFiles(store));
    events.close();
    const profilePath = await hub.stop();
    if (profilePath) {
      const summary = await summarizeProfile(profilePath, root, performance.now() - warmStarted);
      for (const row of topSelf(summary, 12))
        ctx.log(
          `${label} profile: ${(row.self * 100).toFixed(1)} % self, ${(row.total * 100).toFixed(1)} % total ${row.frame}`,
        );
    }
    return { label, runs, written, events: events.counts };
  } finally {
    await hub.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Issue 30 item 1: the warm watch cycle as a user meets it, from outside the hub that `npm start`
 * runs (the production build), on a real dockerd and a real registry behind added latency; the
 * registry floor is measured in the same run, a round right before each cycle. With
 * `BENCH_WATCH_BASELINE=<dir>` (a checkout of another commit, built), its hub is measured first on
 * the same fleet.
 */
export const watchHttp: Benchmark = {
  name: 'watch-http',
  async run(ctx) {
    const target = positiveIntegerEnv('BENCH_WATCH_CONTAINERS', 1000);
    const repositories = positiveIntegerEnv('BENCH_WATCH_REPOSITORIES', 50);
    const repeats = positiveIntegerEnv('BENCH_WATCH_REPEATS', 9);
    const baseline = process.env['BENCH_WATCH_BASELINE'];
    const cleanups: (() => Promise<unknown>)[] = [];
    try {
      const latencyBed = await startLatencyBed(cleanups);
      const { dockerd, proxy } = latencyBed;
      // Each repository: one build as `1.0.0` and `latest`; every fifth also has a `1.1.0`, an update.
      ctx.log(`pushing ${repositories} repositories through the ${LATENCY_MS} ms proxy`);
      const references = await publishRepositories(latencyBed, repositories, 'bench/web', (n) =>
        n % 5 === 0 ? ['1.0.0', 'latest', '1.1.0'] : ['1.0.0', 'latest'],
      );
      ctx.log(`creating ${target} containers over ${references.length} references, ${PARALLELISM} at a time`);
      const fleet = await createContainers(dockerd, references, target, {
        prefix: 'bench-http-',
        parallelism: PARALLELISM,
        onProgress: (done) => ctx.log(`${done} containers running`),
      });
      cleanups.unshift(() => removeContainers(dockerd, fleet.ids, PARALLELISM));
      if (fleet.error) ctx.log(`creation stopped at ${fleet.ids.length}: ${fleet.error.message}`);
      const bed: Bed = { dockerSocket: dockerd.socketPath, references, count: fleet.ids.length, registry: proxy };
      const measured: Measured[] = [];
      const baselineLabel = `baseline: ${process.env['BENCH_WATCH_BASELINE_LABEL'] ?? baseline}`;
      if (baseline) measured.push(await measureHub(ctx, baseline, baselineLabel, bed, repeats));
      measured.push(await measureHub(ctx, ctx.root, 'this tree', bed, repeats));
      return report(bed, repeats, measured);
    } finally {
      for (const cleanup of cleanups) await cleanup().catch((error) => ctx.log(`cleanup: ${String(error)}`));
    }
  },
};

function report(bed: Bed, repeats: number, measured: readonly Measured[]) {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const rows = measured.map(({ label, runs, written, events }) => {
    const floor = median(runs.map((run) => run.floorMs));
    const answer = median(runs.map((run) => run.answerMs));
    const ratios = runs.map((run) => run.answerMs / run.floorMs);
    const published = [...events].map(([type, n]) => `${type} × ${n}`).join(', ') || 'none';
    return [
      label,
      `${ms(floor)} (${ms(Math.min(...runs.map((r) => r.floorMs)))}–${ms(Math.max(...runs.map((r) => r.floorMs)))})`,
      `${ms(answer)} (${ms(Math.min(...runs.map((r) => r.answerMs)))}–${ms(Math.max(...runs.map((r) => r.answerMs)))})`,
      `**${median(ratios).toFixed(2)}×** (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
      `${(answer / floor).toFixed(2)}×`,
      ms(median(runs.map((r) => r.hubCpuMs))),
      formatCount(median(runs.map((r) => r.registryRequests))),
      formatCount(written),
      published,
    ];
  });
  const table = markdownTable(
    [
      'hub',
      'registry floor: median (range)',
      'answer: median (range)',
      'answer ÷ its floor round: median (range)',
      'median ÷ median',
      'hub CPU per request',
      'registry requests per cycle',
      'store files written (all warm cycles)',
      'events published (all warm cycles)',
    ],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
  return {
    title: 'Warm watch cycle over HTTP, on the hub `npm start` runs',
    markdown: [
      `${formatCount(bed.count)} containers on a real dockerd (test/support/docker), running ${bed.references.length} image references (\`:1.0.0\` and \`:latest\` of ${bed.references.length / 2} repositories; every fifth repository also has a \`1.1.0\`) pushed with the docker CLI to a real registry behind a proxy that adds ${LATENCY_MS} ms to every request. The hub runs as \`npm start\` runs it: \`node scripts/build.mjs --if-stale\`, then \`node dist/hub.mjs\` as a child process (file store in a temp dir, anonymous). After its first cycle and one warm cycle (on a fresh store, the one that stores the first check-time stamp), ${repeats} warm cycles (\`BENCH_WATCH_REPEATS\`), each right after a round of the registry floor (one manifest HEAD per reference, ${FLOOR_IN_FLIGHT} in flight, through the same proxy, from this process) and ${SETTLE_MS} ms after the last cycle; the answer of \`POST /api/v1/containers/watch\` is timed by the client, from the request to the last byte of the ${formatCount(bed.count)}-record body (gzip, as \`fetch\` asks). "Store files written" compares the store directory's files (size, mtime) before and after the warm cycles; "events" counts what \`/api/v1/events/ui\` sent meanwhile. \`BENCH_WATCH_CONTAINERS\` and \`BENCH_WATCH_REPOSITORIES\` set the sizes; \`BENCH_WATCH_BASELINE=<dir>\` (another commit's tree, built with \`node scripts/build.mjs\`) measures that hub first on the same fleet (\`BENCH_WATCH_BASELINE_LABEL\` names it); \`BENCH_WATCH_PROFILE=1\` runs the hubs under \`--cpu-prof\` and logs where their time goes.`,
      '',
      table,
      '',
      "Issue 30's target: the answer within 1.5× the floor, and a warm cycle that finds nothing changed writes nothing and publishes nothing.",
    ].join('\n'),
  };
}
