import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { EDGE_HEARTBEAT_MS } from '../shared/edge/protocol';
import { edgeKeyId, generateEdgeKeyPair, toBase64, toHex } from '../shared/edge/sign-in';
import { REPO_ROOT } from '../test/support/hub-process';
import {
  type BenchContext,
  type Benchmark,
  formatBytes,
  formatCount,
  markdownTable,
  positiveIntegerEnv,
} from './support/benchmark';
import { startBuiltHub } from './support/built-hub';
import type { FleetAgent, FleetPlan } from './support/edge-fleet';
import { type HubProcess, startHubProcess } from './support/hub-process';
import { cpuShare, machineBusyShare, type ProcessSample, sampleMachineCpu, sampleProcess } from './support/proc-stats';

const POLL_MS = 250;
const SYNC_TIMEOUT_MS = 180_000;
/** The hub counts as settled after the sync once a second of it uses less than this share of a core. */
const SETTLED_CPU_SHARE = 0.05;
const SETTLE_TIMEOUT_MS = 30_000;
type Store = 'fs' | 'memory';

interface Shape {
  agents: number;
  containersPerAgent: number;
  idleSeconds: number;
  connectConcurrency: number;
}

export interface GeneratorEvent {
  event: string;
  t: number;
  [field: string]: unknown;
}

interface Heartbeats {
  hubShare: number;
  hubCpuMs: number;
  generatorShare: number;
  machineShare: number;
  wallMs: number;
  settleMs: number;
  after: ProcessSample;
}

interface Run {
  store: Store;
  allWelcomedMs: number;
  allSentMs: number;
  syncedMs: number;
  idleBefore: ProcessSample;
  atSynced: ProcessSample;
  syncCpuMs: number;
  syncMachineShare: number;
  generatorSyncCpuMs: number;
  heartbeats: Heartbeats | undefined;
}

export interface Generator {
  child: ChildProcess;
  events: GeneratorEvent[];
}

/**
 * 1,000 simulated edge agents against one hub process: time until all are signed in
 * and synced, hub memory, and hub CPU while only heartbeats flow. Run with the fs store (the
 * measure) and again with the memory store (the same work without the disk), so the report says
 * what the protocol and the hub cost and what the writes add.
 */
export const edgeAgents: Benchmark = {
  name: 'edge-agents',
  async run(ctx) {
    const agents = positiveIntegerEnv('BENCH_EDGE_AGENTS', 1000);
    const shape: Shape = {
      agents,
      containersPerAgent: positiveIntegerEnv('BENCH_EDGE_CONTAINERS', 20),
      idleSeconds: positiveIntegerEnv('BENCH_EDGE_IDLE_SECONDS', 30),
      connectConcurrency: positiveIntegerEnv('BENCH_EDGE_CONNECT_CONCURRENCY', agents),
    };
    const fleet = await fleetKeys(shape.agents);
    ctx.log(`${shape.agents} key pairs made`);
    const runs: Run[] = [];
    for (const store of ['fs', 'memory'] as const) {
      runs.push(await runFleet(ctx, shape, fleet, store));
    }
    return {
      title: `Edge agents: ${formatCount(shape.agents)} simulated agents against one hub`,
      markdown: report(shape, runs),
    };
  },
};

export async function fleetKeys(count: number): Promise<(FleetAgent & { publicKey: string })[]> {
  const agents: (FleetAgent & { publicKey: string })[] = [];
  for (let i = 0; i < count; i++) {
    const { secretKey, publicKey } = await generateEdgeKeyPair();
    agents.push({
      name: `bench-${i}`,
      keyId: edgeKeyId(publicKey),
      secretKey: toHex(secretKey),
      publicKey: toBase64(publicKey),
    });
  }
  return agents;
}

/**
 * The hub process a fleet signs in to: the fleet's keys registered from an authorized-keys file in
 * `dir`, the store in `dir`, no local watcher.
 */
export async function startFleetHub(
  dir: string,
  fleet: readonly (FleetAgent & { publicKey: string })[],
  store: string,
  extraEnv: Record<string, string> = {},
  /** `built`: the production build, as `npm start` runs it (`node dist/hub.mjs`); else the sources through tsx. */
  runs: 'source' | 'built' = 'source',
  /** The built hub's V8 CPU profile written here as it exits (`--cpu-prof` is refused in NODE_OPTIONS). */
  profileDir?: string,
): Promise<HubProcess> {
  const authorizedKeys = join(dir, 'authorized_keys');
  await writeFile(authorizedKeys, fleet.map((agent) => `${agent.publicKey} ${agent.name}`).join('\n'));
  const env = {
    DD_STORE_DRIVER: store,
    DD_STORE_PATH: join(dir, 'data'),
    DD_LOCAL_WATCHER: 'false',
    DD_EDGE_AUTHORIZED_KEYS: authorizedKeys,
    // 1,000 agents from one address are 1,000 upgrades, all signing in at once: the per-address
    // limits are raised out of reach (the total too, for a fleet larger than its 1,024).
    DD_SERVER_RATELIMIT_WEBSOCKET: '1000000',
    DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '1000000',
    DD_EDGE_SIGNIN_MAX: '1000000',
    ...extraEnv,
  };
  if (runs === 'source') return startHubProcess({ env });
  const hub = await startBuiltHub(REPO_ROOT, env, { profileDir });
  return { url: hub.url, pid: hub.pid, sample: () => hub.sample(), stop: async () => void (await hub.stop()) };
}

/** A fresh hub and a fresh fleet; heartbeats are measured on the fs run only (the store plays no part in them). */
async function runFleet(
  ctx: BenchContext,
  shape: Shape,
  fleet: (FleetAgent & { publicKey: string })[],
  store: Store,
): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-bench-edge-'));
  let hub: HubProcess | undefined;
  let generator: Generator | undefined;
  try {
    hub = await startFleetHub(dir, fleet, store, {}, 'built');
    ctx.log(
      `${store} store: hub ${hub.url} (pid ${hub.pid}), ${shape.agents} keys registered from DD_EDGE_AUTHORIZED_KEYS`,
    );
    const planFile = join(dir, 'plan.json');
    const plan: FleetPlan = {
      hubUrl: hub.url,
      agents: fleet.map(({ name, keyId, secretKey }) => ({ name, keyId, secretKey })),
      containersPerAgent: shape.containersPerAgent,
      connectConcurrency: shape.connectConcurrency,
    };
    await writeFile(planFile, JSON.stringify(plan));
    const idleBefore = hub.sample();
    const machineBefore = sampleMachineCpu();
    generator = startGenerator(ctx.root, planFile);
    const started = await waitForEvent(generator.events, 'started', 30_000);
    const syncedAt = await waitForSync(hub.url, generator.events, started.t, shape);
    const atSynced = hub.sample();
    const generatorAtSynced = sampleProcess(generator.child.pid as number);
    const machineAtSynced = sampleMachineCpu();
    const allWelcomed = await waitForEvent(generator.events, 'all-welcomed', 1_000);
    const allSent = await waitForEvent(generator.events, 'all-sent', 1_000);
    ctx.log(
      `${store} store: synced in ${((syncedAt - started.t) / 1000).toFixed(1)} s; hub RSS ${formatBytes(atSynced.rssBytes)}`,
    );
    const heartbeats = store === 'fs' ? await measureHeartbeats(ctx, hub, generator, shape) : undefined;
    return {
      store,
      allWelcomedMs: allWelcomed.t - started.t,
      allSentMs: allSent.t - started.t,
      syncedMs: syncedAt - started.t,
      idleBefore,
      atSynced,
      syncCpuMs: cpuMs(atSynced) - cpuMs(idleBefore),
      syncMachineShare: machineBusyShare(machineBefore, machineAtSynced),
      generatorSyncCpuMs: cpuMs(generatorAtSynced),
      heartbeats,
    };
  } finally {
    if (generator && generator.child.exitCode === null) {
      generator.child.kill('SIGTERM');
      await once(generator.child, 'exit');
    }
    await hub?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const cpuMs = (sample: ProcessSample) => sample.cpuUserMs + sample.cpuSystemMs;

export function startGenerator(root: string, planFile: string): Generator {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'bench', 'support', 'edge-load-generator.ts'), planFile],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const events: GeneratorEvent[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) =>
    events.push(JSON.parse(line) as GeneratorEvent),
  );
  return { child, events };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitForEvent(events: GeneratorEvent[], name: string, timeoutMs: number): Promise<GeneratorEvent> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = events.find((event) => event.event === name);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`bench.edge: the load generator did not report ${name} within ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`bench.edge: GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

interface ListedAgent {
  connected: boolean;
  containers: { total: number };
}

/**
 * Synced: `GET /api/v1/agents` lists every agent connected with all its containers, and then
 * `GET /api/v1/containers` totals all of them. The agents list is the one polled, as the cheaper
 * of the two (one pass over the records, where the container list sorts them).
 */
async function waitForSync(hubUrl: string, events: GeneratorEvent[], startedAt: number, shape: Shape): Promise<number> {
  const containers = shape.agents * shape.containersPerAgent;
  for (;;) {
    if (Date.now() - startedAt > SYNC_TIMEOUT_MS)
      throw new Error(`bench.edge: not synced within ${SYNC_TIMEOUT_MS} ms`);
    const ended = events.filter((event) => event.event === 'closed');
    if (ended.length > 0)
      throw new Error(`bench.edge: ${ended.length} sessions ended early, first: ${JSON.stringify(ended[0])}`);
    const agents = (await getJson<{ data: ListedAgent[] }>(`${hubUrl}/api/v1/agents`)).data;
    const connected = agents.filter((agent) => agent.connected).length;
    const listed = agents.reduce((sum, agent) => sum + agent.containers.total, 0);
    if (connected === shape.agents && listed === containers) {
      const { total } = await getJson<{ total: number }>(`${hubUrl}/api/v1/containers?limit=1`);
      if (total === containers) return Date.now();
    }
    await sleep(POLL_MS);
  }
}

async function measureHeartbeats(
  ctx: BenchContext,
  hub: HubProcess,
  generator: Generator,
  shape: Shape,
): Promise<Heartbeats> {
  // The watch cycle each sync starts, and its writes, finish in the background: heartbeats alone come after them.
  const settleStarted = Date.now();
  for (let previous = hub.sample(); Date.now() - settleStarted < SETTLE_TIMEOUT_MS; ) {
    await sleep(1_000);
    const current = hub.sample();
    if (cpuShare(previous, current) < SETTLED_CPU_SHARE) break;
    previous = current;
  }
  const settleMs = Date.now() - settleStarted;
  ctx.log(`heartbeats only for ${shape.idleSeconds} s`);
  const pid = generator.child.pid as number;
  const before = { hub: hub.sample(), generator: sampleProcess(pid), machine: sampleMachineCpu() };
  await sleep(shape.idleSeconds * 1000);
  const after = { hub: hub.sample(), generator: sampleProcess(pid), machine: sampleMachineCpu() };
  const agents = (await getJson<{ data: ListedAgent[] }>(`${hub.url}/api/v1/agents`)).data;
  const dropped = shape.agents - agents.filter((agent) => agent.connected).length;
  if (dropped > 0) throw new Error(`bench.edge: ${dropped} agents dropped while only heartbeats flowed`);
  return {
    hubShare: cpuShare(before.hub, after.hub),
    hubCpuMs: cpuMs(after.hub) - cpuMs(before.hub),
    generatorShare: cpuShare(before.generator, after.generator),
    machineShare: machineBusyShare(before.machine, after.machine),
    wallMs: after.hub.at - before.hub.at,
    settleMs,
    after: after.hub,
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

function report(shape: Shape, runs: readonly Run[]): string {
  const [fs, memory] = runs as [Run, Run];
  const beat = fs.heartbeats as Heartbeats;
  const total = shape.agents * shape.containersPerAgent;
  const beats = (beat.wallMs / EDGE_HEARTBEAT_MS) * shape.agents;
  const both = (label: string, pick: (run: Run) => string, target = ''): string[] => [
    label,
    pick(fs),
    pick(memory),
    target,
  ];
  const rows = [
    both(`all ${formatCount(shape.agents)} agents welcomed (load generator's clock)`, (r) => seconds(r.allWelcomedMs)),
    both('all snapshots written to the sockets', (r) => seconds(r.allSentMs)),
    both(
      `**synced**: ${formatCount(shape.agents)} agents connected and ${formatCount(total)} containers listed`,
      (r) => `**${seconds(r.syncedMs)}**`,
      shape.agents > 1000 ? 'under 30 s (fs; issue 30, 10,000 agents)' : 'under 30 s (fs)',
    ),
    both('hub CPU time, fleet start to synced', (r) => seconds(r.syncCpuMs)),
    both('machine busy, fleet start to synced (both cores)', (r) => percent(r.syncMachineShare)),
    both('load generator CPU time to synced', (r) => seconds(r.generatorSyncCpuMs)),
    both('hub RSS before the agents came', (r) => formatBytes(r.idleBefore.rssBytes)),
    both('hub RSS when synced', (r) => formatBytes(r.atSynced.rssBytes)),
    both(
      '**hub peak RSS** (VmHWM, start to synced)',
      (r) => `**${formatBytes(r.atSynced.peakRssBytes)}**`,
      shape.agents > 1000 ? 'under 1.5 GiB (issue 30, 10,000 agents)' : 'under 1 GiB',
    ),
    [`hub RSS after ${shape.idleSeconds} s of heartbeats`, formatBytes(beat.after.rssBytes), '–', ''],
    [
      `**hub CPU while only heartbeats flow** (${shape.idleSeconds} s, ${EDGE_HEARTBEAT_MS / 1000} s beat)`,
      `**${percent(beat.hubShare)}** of one core`,
      '–',
      '',
    ],
    [
      'hub CPU per agent beat (its ping and pong, the agent’s pong and ping)',
      `${((beat.hubCpuMs * 1000) / beats).toFixed(0)} µs`,
      '–',
      '',
    ],
  ];
  return [
    `${formatCount(shape.agents)} simulated agents with ${shape.containersPerAgent} containers each (${formatCount(total)} containers) against the real hub process (\`node dist/hub.mjs\`, the production build as \`npm start\` runs it: log level info, anonymous, no local watcher), once with \`DD_STORE_DRIVER=fs\` in a temp dir (the measure) and once with \`memory\` (the same work without the disk). Every agent's key is registered at start through \`DD_EDGE_AUTHORIZED_KEYS\`; each run starts a fresh hub, so every agent signs in for the first time and its name is bound. The agents are played by a load generator in its own process (bench/support/edge-load-generator.ts): one WebSocket each, edge/1.0 as edge-agent/ speaks it (the challenge signed with shared/edge/sign-in.ts, then one full snapshot of its watcher, a ping every heartbeat, a pong to each of the hub's), ${shape.connectConcurrency === shape.agents ? 'all dialling at once, as a fleet does when its hub comes back' : `at most ${shape.connectConcurrency} handshakes in flight`}. Times count from the generator's start. Synced: \`GET /api/v1/agents\` (polled every ${POLL_MS} ms) lists every agent connected with all its containers, and \`GET /api/v1/containers\` then totals ${formatCount(total)}. Knobs: \`BENCH_EDGE_AGENTS\`, \`BENCH_EDGE_CONTAINERS\`, \`BENCH_EDGE_IDLE_SECONDS\`, \`BENCH_EDGE_CONNECT_CONCURRENCY\`.`,
    '',
    markdownTable(['measure', 'fs store', 'memory store', 'target'], rows, ['left', 'right', 'right', 'left']),
    '',
    '- Registry checks: none run. The agents announce their watcher with `watchByDefault: false` (as `DD_WATCHER_LOCAL_WATCHBYDEFAULT=false` does), so every container is listed and none is looked up, and the images name a closed loopback port (`127.0.0.1:9/bench/app-N`), so nothing could reach a registry outside this machine anyway. The cost of checks and their fleet-wide deduplication is what the registry and watch-cycle benchmarks measure; here it would only time a refused connection.',
    `- Heartbeats: the hub's beat is ${EDGE_HEARTBEAT_MS / 1000} s (\`EDGE_HEARTBEAT_MS\`; no variable changes it), so the ${shape.idleSeconds} s window holds about ${formatCount(beats)} agent beats. It opens once the hub has settled after the sync (${seconds(beat.settleMs)}: the watch cycle each full sync starts, and its writes, finish in the background), and nothing polls the API meanwhile. Load generator: ${percent(beat.generatorShare)} of one core; the whole machine: ${percent(beat.machineShare)} of both cores (other work on the machine included).`,
    '- The hub, the load generator and the runner share the 2 cores during the sync. With the fs store every container record, audit entry (`container-added`, one per new container), agent description and name binding is a file of its own, written atomically with an fsync; the records of a snapshot, and their audit entries, are each one batch whose directory is synced once (group commit): the difference between the two columns is the disk.',
  ].join('\n');
}
