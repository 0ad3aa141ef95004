import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container } from '../shared/schemas/container';
import type { LatencyProxy } from '../test/support/latency-proxy';
import { type Benchmark, formatCount, markdownTable, positiveIntegerEnv } from './support/benchmark';
import { type ProfileSummary, startProfiledHub, summarizeProfile, topSelf } from './support/cpu-profile';
import { createContainers, publishBuild, removeContainers } from './support/docker-fleet';
import { type EngineProxy, startEngineProxy } from './support/engine-proxy';
import { type HubProcess, startHubProcess } from './support/hub-process';
import { REGISTRY_LATENCY_MS, startLatencyBed } from './support/latency-bed';
import type { ProcessSample } from './support/proc-stats';

const LATENCY_MS = REGISTRY_LATENCY_MS;
const REPOSITORIES = 5;
const PARALLELISM = 8;
const PROFILE_ROWS = 8;
/** The pause after a warm cycle's closing listing: each cycle starts on a quiet hub, as a scheduled one would. */
const SETTLE_MS = 250;
const REMOVE_LIMIT_MS = 300_000;
const CLEANUP_LIMIT_MS = 120_000;
/** Repositories whose `latest` is pushed again once the containers run: those containers see a digest update. */
const REBUILT = new Set([0, 2, 4]);

export interface Cycle {
  label: string;
  /** From the cycle's first Engine call (of any kind) to the end the hub records (the watcher's lastRunAt). */
  cycleMs: number | undefined;
  /** The HTTP request that ran it, as its client waited (the response carries every record). */
  requestMs: number | undefined;
  hubCpuMs: number;
  engine: Map<string, number>;
  registry: Map<string, number>;
}

interface Rig {
  hub: HubProcess;
  engine: EngineProxy;
  registry: LatencyProxy;
}

const cpuMs = (before: ProcessSample, after: ProcessSample) =>
  after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;

async function api<T>(hub: { url: string }, path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${hub.url}${path}`, init);
  if (!response.ok)
    throw new Error(
      `watch-cycle: ${init?.method ?? 'GET'} ${path} answered ${response.status}: ${await response.text()}`,
    );
  return (await response.json()) as T;
}

async function lastRunAt(hub: { url: string }): Promise<number | undefined> {
  const watchers = await api<{ data: { metadata: { lastRunAt?: string } }[] }>(hub, '/api/v1/watchers');
  const at = watchers.data[0]?.metadata.lastRunAt;
  return at === undefined ? undefined : Date.parse(at);
}

/** Polls until the watcher records a cycle that ended after `after`. */
async function cycleEnd(hub: { url: string }, after: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const at = await lastRunAt(hub);
    if (at !== undefined && at > after) return at;
    if (Date.now() > deadline) throw new Error('watch-cycle: the watcher recorded no cycle in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function snapshot(
  rig: Rig,
  label: string,
  cycleEndAt: number | undefined,
  requestMs: number | undefined,
  before: ProcessSample,
): Cycle {
  const engine = new Map([...rig.engine.counts].filter(([kind]) => kind !== 'events'));
  // A warm cycle made from the event-kept inventory lists only after it ends: its first call is an image inspect.
  const calls = [...rig.engine.firstAt].filter(([kind]) => kind !== 'events').map(([, at]) => at);
  const started = calls.length > 0 ? Math.min(...calls) : undefined;
  return {
    label,
    cycleMs: cycleEndAt !== undefined && started !== undefined ? cycleEndAt - started : undefined,
    requestMs,
    hubCpuMs: cpuMs(before, rig.hub.sample()),
    engine,
    registry: new Map(rig.registry.counts),
  };
}

function reset(rig: Rig): ProcessSample {
  rig.engine.reset();
  rig.registry.reset();
  return rig.hub.sample();
}

/** Waits for the listing a warm cycle reconciles with after it ends (DockerWatcher.reconcile), so the next cycle starts on a quiet hub. */
async function listingAfter(rig: Rig): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!rig.engine.counts.get('list containers')) {
    if (Date.now() > deadline) throw new Error('watch-cycle: no listing followed the warm cycle');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

/** The watch route, as the UI's "check now" calls it; the cycle's end is read from the watcher. */
async function warmCycle(rig: Rig, expected: number): Promise<Cycle> {
  const before = reset(rig);
  const started = performance.now();
  const body = await api<{ total: number }>(rig.hub, '/api/v1/containers/watch', { method: 'POST' });
  const requestMs = performance.now() - started;
  if (body.total !== expected)
    throw new Error(`watch-cycle: the watch listed ${body.total} containers, not ${expected}`);
  const end = await cycleEnd(rig.hub, 0, 1000);
  await listingAfter(rig);
  return snapshot(rig, 'next cycle (warm)', end, requestMs, before);
}

async function inventoryRefresh(rig: Rig, expected: number): Promise<Cycle> {
  const before = reset(rig);
  const started = performance.now();
  const body = await api<{ containers: unknown[]; authoritative: boolean; errors: unknown[] }>(
    rig.hub,
    '/api/v1/watchers/docker/local/inventory',
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
  );
  const requestMs = performance.now() - started;
  if (!body.authoritative || body.errors.length > 0 || body.containers.length !== expected) {
    throw new Error(
      `watch-cycle: inventory refresh gave ${JSON.stringify({ ...body, containers: body.containers.length })}`,
    );
  }
  return snapshot(rig, 'inventory refresh (no registry checks)', undefined, requestMs, before);
}

/**
 * The registry floor of a warm cycle: one manifest HEAD per distinct reference, at most 16 in
 * flight, through the same latency proxy: what no cycle can beat (median of `rounds` rounds, ms).
 */
async function registryFloor(references: readonly string[], rounds = 5): Promise<number> {
  const times: number[] = [];
  const accept = 'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json';
  for (let round = 0; round < rounds; round++) {
    const queue = [...references];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(16, queue.length) }, async () => {
        for (let reference = queue.shift(); reference; reference = queue.shift()) {
          const slash = reference.indexOf('/');
          const [repository, tag] = reference.slice(slash + 1).split(':') as [string, string];
          const url = `http://${reference.slice(0, slash)}/v2/${repository}/manifests/${tag}`;
          const response = await fetch(url, { method: 'HEAD', headers: { accept } });
          if (!response.ok) throw new Error(`watch-cycle: HEAD ${url} answered ${response.status}`);
        }
      }),
    );
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
}

/**
 * Where a warm cycle's CPU goes: a second hub process on the same daemon, registry and proxies,
 * under V8's sampling profiler (bench/support/cpu-profile.ts), runs its first cycle and then
 * `repeats` warm ones through the watch route; the profile is read over the warm cycles only (the
 * window from the first of them to the hub's exit right after the last).
 */
async function profileWarmCycles(
  root: string,
  engineSocket: string,
  expected: number,
  repeats: number,
): Promise<ProfileSummary> {
  const scratch = await mkdtemp(join(tmpdir(), 'dockwatch-bench-profile-'));
  const hub = await startProfiledHub(
    root,
    {
      DD_STORE_DRIVER: 'memory',
      DD_LOG_FORMAT: 'json',
      DD_WATCHER_LOCAL_SOCKET: engineSocket,
      DD_WATCHER_LOCAL_JITTER: '0',
    },
    scratch,
  );
  let stopped = false;
  try {
    await cycleEnd(hub, 0, 600_000);
    const started = performance.now();
    for (let run = 0; run < repeats; run++) {
      const body = await api<{ total: number }>(hub, '/api/v1/containers/watch', { method: 'POST' });
      if (body.total !== expected) throw new Error(`watch-cycle: the profiled hub listed ${body.total} containers`);
    }
    stopped = true;
    const profile = await hub.stop();
    return await summarizeProfile(profile, root, performance.now() - started);
  } finally {
    if (!stopped) await hub.stop().catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * What the one Engine call a warm cycle cannot skip costs by itself: `GET /containers/json` through
 * the same counting pass-through, its body read whole (median of 5, ms).
 */
async function engineListMs(engineSocket: string): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      request({ socketPath: engineSocket, path: '/v1.41/containers/json' }, (response) => {
        response.on('data', () => undefined);
        response.on('end', resolve);
        response.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    rounds.push(performance.now() - started);
  }
  return rounds.sort((a, b) => a - b)[2] as number;
}

function warmSpan(cycles: readonly Cycle[]): [number | undefined, number | undefined] {
  const times = cycles.flatMap((cycle) => (cycle.cycleMs === undefined ? [] : [cycle.cycleMs]));
  return times.length === 0 ? [undefined, undefined] : [Math.min(...times), Math.max(...times)];
}

function median(cycles: readonly Cycle[]): Cycle {
  const key = (cycle: Cycle) => cycle.cycleMs ?? cycle.requestMs ?? 0;
  return [...cycles].sort((a, b) => key(a) - key(b))[Math.floor(cycles.length / 2)] as Cycle;
}

/** The records the first cycle produced must be what the fleet holds, or the figures measure the wrong work. */
function verify(records: readonly Container[], expected: number): { updates: number } {
  if (records.length !== expected) throw new Error(`watch-cycle: ${records.length} records for ${expected} containers`);
  const failed = records.filter((record) => record.error || !record.checkedAt);
  if (failed.length > 0)
    throw new Error(`watch-cycle: ${failed.length} unchecked records, e.g. ${JSON.stringify(failed[0]?.error)}`);
  const due = (c: Container) =>
    c.image.tag.value === '1.0.0' || REBUILT.has(Number(/app(\d+)$/.exec(c.image.name)?.[1]));
  const wrong = records.filter((record) => record.updateAvailable !== due(record));
  if (wrong.length > 0) throw new Error(`watch-cycle: ${wrong.length} records with a wrong update verdict`);
  return { updates: records.filter((record) => record.updateAvailable).length };
}

export const watchCycle: Benchmark = {
  name: 'watch-cycle',
  async run(ctx) {
    const target = positiveIntegerEnv('BENCH_WATCH_CONTAINERS', 500);
    const repeats = positiveIntegerEnv('BENCH_WATCH_REPEATS', 5);
    const cleanups: (() => Promise<unknown>)[] = [];
    try {
      const { dockerd, proxy } = await startLatencyBed(cleanups);

      ctx.log(`pushing ${REPOSITORIES} repositories through the ${LATENCY_MS} ms proxy`);
      const images: string[] = [];
      for (let i = 0; i < REPOSITORIES; i++) {
        await publishBuild(dockerd, proxy.host, `bench/app${i}`, 'a', ['1.0.0', 'latest']);
        await publishBuild(dockerd, proxy.host, `bench/app${i}`, 'b', ['1.1.0']);
        images.push(`${proxy.host}/bench/app${i}:1.0.0`, `${proxy.host}/bench/app${i}:latest`);
      }
      ctx.log(`creating ${target} containers, ${PARALLELISM} at a time`);
      const createStarted = performance.now();
      const fleet = await createContainers(dockerd, images, target, {
        prefix: 'bench-',
        parallelism: PARALLELISM,
        onProgress: (done) => ctx.log(`${done} containers running`),
      });
      const createMs = performance.now() - createStarted;
      if (fleet.error) ctx.log(`creation stopped at ${fleet.ids.length}: ${fleet.error.message}`);
      const count = fleet.ids.length;
      for (const i of REBUILT) await publishBuild(dockerd, proxy.host, `bench/app${i}`, 'c', ['latest']);

      const dir = await mkdtemp(join(tmpdir(), 'dockwatch-bench-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const engine = await startEngineProxy(dockerd.socketPath, join(dir, 'engine.sock'));
      cleanups.push(() => engine.close());
      engine.reset();
      proxy.reset();
      const hub = await startHubProcess({
        env: { DD_WATCHER_LOCAL_SOCKET: engine.socketPath, DD_WATCHER_LOCAL_JITTER: '0' },
      });
      cleanups.push(() => hub.stop());
      const rig: Rig = { hub, engine, registry: proxy };

      // The first cycle is the one the watcher schedules 2 s after start, measured from outside.
      const idle = hub.sample();
      const first = snapshot(rig, 'first cycle (cold hub)', await cycleEnd(hub, 0, 600_000), undefined, idle);
      const { updates } = verify((await api<{ data: Container[] }>(hub, '/api/v1/containers')).data, count);
      ctx.log(`first cycle: ${first.cycleMs} ms for ${count} containers, ${updates} updates`);
      // Each warm cycle right after a round of its floor: the registry's own pace drifts between
      // runs (35 to 45 ms on one machine in one afternoon), so each cycle is set against its own.
      const warmRuns: Cycle[] = [];
      const ratios: number[] = [];
      for (let run = 0; run < repeats; run++) {
        const floor = await registryFloor(images, 1);
        const cycle = await warmCycle(rig, count);
        warmRuns.push(cycle);
        if (cycle.cycleMs !== undefined) ratios.push(cycle.cycleMs / floor);
      }
      ratios.sort((a, b) => a - b);
      const refreshRuns: Cycle[] = [];
      for (let run = 0; run < repeats; run++) refreshRuns.push(await inventoryRefresh(rig, count));
      const warm = median(warmRuns);
      const floorMs = await registryFloor(images);
      const listMs = await engineListMs(engine.socketPath);
      ctx.log(
        `warm cycle: ${warm.cycleMs} ms (registry floor ${floorMs.toFixed(0)} ms; each cycle over its own floor round: median ${ratios[Math.floor(ratios.length / 2)]?.toFixed(2)}×); profiling warm cycles`,
      );
      await hub.stop();
      const profile = await profileWarmCycles(ctx.root, engine.socketPath, count, repeats);
      for (const row of topSelf(profile, PROFILE_ROWS))
        ctx.log(`profile: ${(row.self * 100).toFixed(1)} % self, ${(row.total * 100).toFixed(1)} % total ${row.frame}`);
      ctx.log(`force-removing ${count} containers`);

      const removeStarted = performance.now();
      // Bounded: Debian's dockerd 20.10 was once seen to stop answering force-removals half-way
      // (2026-11-27, idle machine); the figures above must not be lost to it. The daemon is killed
      // with its temp dir at cleanup either way.
      const removed = await Promise.race([
        removeContainers(dockerd, fleet.ids, PARALLELISM).then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), REMOVE_LIMIT_MS).unref()),
      ]);
      const removeMs = removed ? performance.now() - removeStarted : undefined;
      if (!removed) ctx.log(`removal did not finish in ${REMOVE_LIMIT_MS / 1000} s; left to the daemon's cleanup`);
      const setup = {
        target,
        count,
        createMs,
        removeMs,
        updates,
        repeats,
        creationError: fleet.error?.message,
        floorMs,
        listMs,
        warmRange: warmSpan(warmRuns),
        ratio: ratios[Math.floor(ratios.length / 2)],
        ratioRange: [ratios[0], ratios.at(-1)] as [number | undefined, number | undefined],
      };
      return {
        title: 'Watch cycle on a real Docker Engine',
        markdown: report(setup, [first, warm, median(refreshRuns)], profile),
      };
    } finally {
      // Each bounded (a daemon that stopped answering must not hold the report back); what is
      // left, the test bed's exit hook kills with its temp dir.
      for (const cleanup of cleanups.reverse()) {
        const done = await Promise.race([
          cleanup().then(
            () => true,
            (error: unknown) => ctx.log(`cleanup failed: ${String(error)}`),
          ),
          new Promise<false>((resolve) => setTimeout(() => resolve(false), CLEANUP_LIMIT_MS).unref()),
        ]);
        if (done === false)
          ctx.log(`a cleanup step did not finish in ${CLEANUP_LIMIT_MS / 1000} s; left to the exit hook`);
      }
    }
  },
};

interface Setup {
  target: number;
  count: number;
  createMs: number;
  /** Undefined when the removal did not finish within REMOVE_LIMIT_MS. */
  removeMs: number | undefined;
  updates: number;
  repeats: number;
  creationError: string | undefined;
  floorMs: number;
  listMs: number;
  /** The fastest and slowest warm cycle. */
  warmRange: [number | undefined, number | undefined];
  /** The median of each warm cycle over the floor round measured just before it, and their range. */
  ratio: number | undefined;
  ratioRange: [number | undefined, number | undefined];
}

function report(setup: Setup, cycles: readonly Cycle[], profile: ProfileSummary): string {
  const [first, warm, refresh] = cycles as [Cycle, Cycle, Cycle];
  const engineKinds = ['list containers', 'inspect container', 'inspect image'];
  const otherEngine = [...new Set(cycles.flatMap((c) => [...c.engine.keys()]))]
    .filter((kind) => !engineKinds.includes(kind))
    .sort();
  const registryKinds = [...new Set(cycles.flatMap((c) => [...c.registry.keys()]))].sort();
  const sum = (map: Map<string, number>) => [...map.values()].reduce((total, n) => total + n, 0);
  const ms = (value: number | undefined) => (value === undefined ? '–' : `${value.toFixed(0)} ms`);
  const times = (value: number | undefined) => (value === undefined ? '–' : `${value.toFixed(2)}×`);
  const rows = cycles.map((cycle) => [
    cycle.label,
    ms(cycle.cycleMs),
    ms(cycle.requestMs),
    `${cycle.hubCpuMs.toFixed(0)} ms`,
    ...[...engineKinds, ...otherEngine].map((kind) => formatCount(cycle.engine.get(kind) ?? 0)),
    formatCount(sum(cycle.engine)),
    ...registryKinds.map((kind) => formatCount(cycle.registry.get(kind) ?? 0)),
    formatCount(sum(cycle.registry)),
  ]);
  const headers = [
    'cycle',
    'cycle time',
    'HTTP request',
    'hub CPU',
    ...[...engineKinds, ...otherEngine].map((kind) => `Engine: ${kind}`),
    'Engine total',
    ...registryKinds.map((kind) => `registry: ${kind}`),
    'registry total',
  ];
  const references = REPOSITORIES * 2;
  const warmInspects = warm.engine.get('inspect container') ?? 0;
  const fleetLine =
    setup.count === setup.target
      ? `${formatCount(setup.count)} containers`
      : `${formatCount(setup.count)} containers (of ${formatCount(setup.target)} asked for: ${setup.creationError ?? 'creation stopped'})`;
  return [
    `${fleetLine} on a real dockerd (Debian's docker.io 20.10, API 1.41; test/support/docker), running ${references} image references over ${REPOSITORIES} repositories (\`:1.0.0\` and \`:latest\` of each, ${Math.round(setup.count / references)} containers per reference). The images were pushed with the docker CLI to Debian's docker-registry behind a proxy that adds ${LATENCY_MS} ms to every request; \`1.1.0\` exists in every repository and \`latest\` was pushed again for ${REBUILT.size} repositories after the containers started, so **${formatCount(setup.updates)} containers have an update** (checked against every record before measuring). The hub runs as its own process (\`node --import tsx hub/src/entry/node.ts\`, memory store) and reaches the daemon through a pass-through on its socket that counts Engine API calls. \`BENCH_WATCH_CONTAINERS\` (default 500) and \`BENCH_WATCH_REPEATS\` (default 5) set the size and the repeats.`,
    '',
    markdownTable(headers, rows, ['left', ...headers.slice(1).map(() => 'right' as const)]),
    '',
    `- **First cycle: ${ms(first.cycleMs)}** for ${formatCount(setup.count)} containers (${((first.cycleMs ?? 0) / setup.count).toFixed(1)} ms per container), the one the watcher runs 2 s after start, timed from its first Engine call to the end it records (\`metadata.lastRunAt\`). **Warm cycle: ${ms(warm.cycleMs)}** (median of ${setup.repeats}, run by \`POST /api/v1/containers/watch\`; the HTTP request adds the ${formatCount(setup.count)}-record response). Inventory refresh (\`POST /api/v1/watchers/docker/local/inventory\`, Engine only): ${ms(refresh.requestMs)} (median of ${setup.repeats}).`,
    `- Registry lookups are deduplicated across the fleet: the warm cycle asks **${sum(warm.registry)} requests for ${formatCount(setup.count)} containers** (${(sum(warm.registry) / references).toFixed(2)} per distinct reference: one tag list per repository, one HEAD per \`latest\`); the first cycle ${sum(first.registry)}, also learning each candidate's manifest and config once. Checked one container at a time, the warm cycle alone would be at least ${formatCount(setup.count)} requests.`,
    `- Engine calls: ${formatCount(sum(warm.engine))} per warm cycle: **${formatCount(warmInspects)} container inspects for ${formatCount(setup.count)} unchanged containers** (the first cycle: ${formatCount(first.engine.get('inspect container') ?? 0)}), one inspect per distinct image (${warm.engine.get('inspect image') ?? 0}) and one list (${warm.engine.get('list containers') ?? 0}), **asked for when the cycle begins, beside the registry requests**. The watcher keeps what the Engine said of each container while its event stream is open, and an event about a container drops its entry (hub/src/watchers/inspect-cache.ts), with the record built from it. A warm cycle whose every record the stream kept so is made from them and asks the registry at once, without waiting for Docker's listing; before its callers are answered, a container the listing shows otherwise than the cache (an event lost, or not yet come) is observed and checked (\`reconcile\` in hub/src/watchers/docker-watcher.ts). The Engine client remembers the reference of a container it lists by image id (a tag pushed again), since a container's \`Config.Image\` never changes. The inventory refresh lists and inspects images without any registry check and takes ${((refresh.requestMs ?? 0) / (warm.cycleMs ?? 1)).toFixed(2)}× the warm cycle.`,
    `- The rest of a warm cycle: the registry requests start with it (prefetched from the last records), one image check and one update evaluation per reference, not per container; each record keeps its parsed reference and check keys between cycles; a record the check finds saying what it already says is copied once with its new \`checkedAt\`, and such records are stored as one stamp per watcher (\`putChecked\`), not rewritten one by one; identity state is written only when a clock or gate moves. After the last registry answer (timed once inside the hub with marks at each step, 30 cycles, 2026-11-27 evening): the checks' end 1.6 ms, the write 1.3 ms, notifications and approvals 1.4 ms, the auto-update policy 2.2 ms (before: 2 to 10 and 2 to 12 ms, a promise per container each, and every container with an update copied and redacted for notifications whether or not a trigger was to be told; now only those a trigger is told about are).`,
    `- **Registry floor: ${setup.floorMs.toFixed(0)} ms** (one manifest HEAD per distinct reference, ${references} references, at most 16 in flight, through the same ${LATENCY_MS} ms proxy, median of 5 rounds, same run): the median warm cycle takes ${((warm.cycleMs ?? 0) / setup.floorMs).toFixed(2)}× it. Set against a floor round measured just before it, **each warm cycle takes ${times(setup.ratio)} its floor (median of ${setup.repeats}; ${times(setup.ratioRange[0])} to ${times(setup.ratioRange[1])})** (issue 18's target: 1.5×); the cycles took ${ms(setup.warmRange[0])} to ${ms(setup.warmRange[1])}. The Engine listing takes **${setup.listMs.toFixed(0)} ms** by itself (\`GET /containers/json\` of ${formatCount(setup.count)} containers through the same pass-through, body read, median of 5): a cycle that waited for it, as this one did before the event-kept inventory, would end no sooner.`,
    `- "hub CPU" is the hub process's CPU time (user + system, /proc) during the cycle; the first cycle's figure also covers the 2 s before it, the warm cycle's the HTTP response of ${formatCount(setup.count)} records and the listing that follows it (and the ${SETTLE_MS} ms pause after that listing, before the next cycle starts). Hub, daemon, registry, proxies and this runner share the machine's cores.`,
    `- CPU profile of the hub during ${setup.repeats} warm cycles run through the watch route (a second hub process on the same daemon and registry, V8's sampling profiler; ${profile.busyMs.toFixed(0)} ms busy; shares of the busy samples; "total" includes what the function called; frames by function and file, as line numbers under tsx are those of the transformed code):`,
    '',
    markdownTable(
      ['function', 'self', 'total'],
      topSelf(profile, PROFILE_ROWS).map((row) => [
        `\`${row.frame}\``,
        `${(row.self * 100).toFixed(1)} %`,
        `${(row.total * 100).toFixed(1)} %`,
      ]),
      ['left', 'right', 'right'],
    ),
    '',
    `- Setup, not measured above: creating and starting the ${formatCount(setup.count)} containers took ${(setup.createMs / 1000).toFixed(1)} s (${PARALLELISM} at a time), force-removing them ${setup.removeMs === undefined ? `did not finish in ${REMOVE_LIMIT_MS / 1000} s (the daemon stopped answering)` : `${(setup.removeMs / 1000).toFixed(1)} s`}.`,
  ].join('\n');
}
