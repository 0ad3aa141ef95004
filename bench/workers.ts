import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { buildWorkersBundle } from '../scripts/build-workers.mjs';
import { fleetKeys, type Generator, startGenerator, waitForEvent } from './edge-agents';
import {
  type BenchContext,
  type Benchmark,
  formatBytes,
  formatCount,
  markdownTable,
  positiveIntegerEnv,
} from './support/benchmark';
import type { FleetPlan } from './support/edge-fleet';
import { runLoad } from './support/load';
import { percentile } from './support/webhook-rig';
import { connectWorkerdInspector, type HeapUsage, type WorkerdInspector } from './support/workerd-inspector';

const SYNC_TIMEOUT_MS = 300_000;
const POLL_MS = 500;
/** A Durable Object's isolate has 128 MB (Workers limits), shared with the Worker that forwards to it. */
const OBJECT_MEMORY_LIMIT = 128 * 1024 * 1024;
const LIST_PATH = '/api/v1/containers?limit=200';
/** Key registrations in flight at once: an admin's script, not one request after another. */
const REGISTER_CONCURRENCY = 16;

interface Shape {
  /** Edge gateway objects (DD_EDGE_GATEWAY_SHARDS); 0: the hub object holds the sockets. */
  shards: number;
  agents: number;
  containersPerAgent: number;
  requests: number;
  connectConcurrency: number;
}

interface Measured {
  empty: HeapUsage;
  keysRegistered: HeapUsage;
  /** How long registering the fleet's keys took, REGISTER_CONCURRENCY at a time. */
  registerMs: number;
  synced: HeapUsage & { collected: boolean };
  peakSample: number;
  afterList: HeapUsage;
  syncedMs: number;
  /** Until every agent was listed connected. */
  signedInMs: number;
  latencies: number[];
  pageBytes: number;
  agentsPageMs: number;
  throughput: { path: string; rps: number; p99: number; non2xx: number }[];
}

const THROUGHPUT_PATHS = ['/api/v1/containers?limit=20', '/api/v1/server'];

/**
 * The hub object's heap under workerd (Miniflare) with 10,000 containers of 500 live edge agents, read
 * through the V8 inspector, and the container list's latency from the object at that size.
 */
export const workersHeap: Benchmark = {
  name: 'workers-heap',
  async run(ctx) {
    const agents = positiveIntegerEnv('BENCH_WORKERS_AGENTS', 500);
    const shape: Shape = {
      shards: 0,
      agents,
      containersPerAgent: positiveIntegerEnv('BENCH_WORKERS_CONTAINERS', 20),
      requests: positiveIntegerEnv('BENCH_WORKERS_REQUESTS', 300),
      connectConcurrency: positiveIntegerEnv('BENCH_WORKERS_CONNECT_CONCURRENCY', 50),
    };
    const measured = await measure(ctx, shape);
    return {
      title: `Workers: the hub object's heap with ${formatCount(shape.agents * shape.containersPerAgent)} containers`,
      markdown: report(shape, measured),
    };
  },
};

/**
 * The fleet through edge gateways under workerd (issue 16 item 4): 1,000 agents × 20 containers
 * from the load generator's own process, each agent's socket in the gateway of its name's shard;
 * sign-ins and syncs per second, the isolate's heap after the sync, and the container list.
 */
export const workersGateways: Benchmark = {
  name: 'workers',
  async run(ctx) {
    const shape: Shape = {
      shards: positiveIntegerEnv('BENCH_WORKERS_SHARDS', 64),
      agents: positiveIntegerEnv('BENCH_WORKERS_AGENTS', 1000),
      containersPerAgent: positiveIntegerEnv('BENCH_WORKERS_CONTAINERS', 20),
      requests: positiveIntegerEnv('BENCH_WORKERS_REQUESTS', 300),
      connectConcurrency: positiveIntegerEnv('BENCH_WORKERS_CONNECT_CONCURRENCY', 50),
    };
    const measured = await measure(ctx, shape);
    return {
      title: `Workers: ${formatCount(shape.agents)} agents through ${shape.shards} edge gateways`,
      markdown: report(shape, measured),
    };
  },
};

async function measure(ctx: BenchContext, shape: Shape): Promise<Measured> {
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-bench-workers-'));
  let mf: Miniflare | undefined;
  let inspector: WorkerdInspector | undefined;
  let generator: Generator | undefined;
  let runtimeErrors = '';
  try {
    const bundle = await buildWorkersBundle({ outfile: join(dir, 'bundle', 'index.js') });
    mf = new Miniflare({
      modules: true,
      scriptPath: bundle,
      modulesRoot: dirname(bundle),
      compatibilityDate: '2026-04-01',
      durableObjects: {
        HUB: { className: 'HubDurableObject', useSQLite: true },
        EDGE_GATEWAY: { className: 'EdgeGatewayObject', useSQLite: true },
      },
      durableObjectsPersist: join(dir, 'do'),
      inspectorPort: 0,
      bindings: {
        DD_EDGE_GATEWAY_SHARDS: String(shape.shards),
        DD_LOG_LEVEL: 'warn',
        // Anonymous on purpose (a Worker without DD_AUTH_* refuses to run otherwise).
        DD_SERVER_HOST: '0.0.0.0',
        // One address plays the whole fleet and the measuring client: per-address limits out of reach.
        DD_SERVER_RATELIMIT_MAX: '1000000',
        DD_SERVER_RATELIMIT_WEBSOCKET: '1000000',
        DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '1000000',
        DD_EDGE_SIGNIN_MAX: '1000000',
      },
      // workerd's own complaints (an object restarted, a limit hit) come with a failure's message.
      handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
        stdout.resume();
        stderr.setEncoding('utf8').on('data', (chunk: string) => {
          runtimeErrors = (runtimeErrors + chunk).slice(-2_000);
        });
      },
    } as MiniflareOptions);
    const url = (await mf.ready).href.replace(/\/$/, '');
    ctx.log(`workerd ready at ${url}`);
    inspector = await connectWorkerdInspector(await mf.getInspectorURL());
    ctx.log('inspector connected');
    await getJson(`${url}/api/v1/agents`); // creates the object: its heap at rest, empty
    const empty = await inspector.heapAfterGc();
    ctx.log(`workerd at ${url}; empty object: ${formatBytes(empty.usedSize)} used`);

    const fleet = await fleetKeys(shape.agents);
    const registerMs = await registerKeys(url, fleet);
    const keysRegistered = await inspector.heapAfterGc();
    ctx.log(`${shape.agents} keys registered through POST /api/v1/edge/keys in ${(registerMs / 1000).toFixed(1)} s`);

    const plan: FleetPlan = {
      hubUrl: url,
      agents: fleet.map(({ name, keyId, secretKey }) => ({ name, keyId, secretKey })),
      containersPerAgent: shape.containersPerAgent,
      connectConcurrency: shape.connectConcurrency,
    };
    const planFile = join(dir, 'plan.json');
    await writeFile(planFile, JSON.stringify(plan));
    generator = startGenerator(process.cwd(), planFile);
    const started = await waitForEvent(generator.events, 'started', 30_000);
    const { syncedAt, peakSample, signedInAt } = await waitForSync(url, generator, shape, inspector);
    const synced = await inspector.heapAfterGc();
    ctx.log(`synced in ${((syncedAt - started.t) / 1000).toFixed(1)} s; heap ${formatBytes(synced.usedSize)}`);

    const agentsStarted = performance.now();
    await getJson(`${url}/api/v1/agents`);
    const agentsPageMs = performance.now() - agentsStarted;
    const { latencies, pageBytes } = await timeList(url, shape.requests);
    const afterList = await inspector.heapAfterGc();
    // What one hub object serves when many ask at once: the agents page and a small list page.
    const throughput: Measured['throughput'] = [];
    for (const path of THROUGHPUT_PATHS) {
      const load = await runLoad({ root: ctx.root, url: url + path, connections: 10, durationSeconds: 5 });
      throughput.push({ path, rps: load.requestsPerSecond.mean, p99: load.latencyMs.p99, non2xx: load.non2xx });
      ctx.log(`${path}: ${load.requestsPerSecond.mean.toFixed(0)} requests/s at 10 connections`);
    }
    return {
      empty,
      keysRegistered,
      registerMs,
      synced,
      peakSample,
      afterList,
      syncedMs: syncedAt - started.t,
      signedInMs: signedInAt - started.t,
      latencies,
      pageBytes,
      agentsPageMs,
      throughput,
    };
  } catch (error) {
    const cause = (error as Error).cause ? ` (${String((error as Error).cause)})` : '';
    const said = runtimeErrors ? `; workerd said: ${runtimeErrors}` : '';
    throw new Error(`${(error as Error).message}${cause}${said}`, { cause: error });
  } finally {
    if (generator && generator.child.exitCode === null) {
      generator.child.kill('SIGTERM');
      await once(generator.child, 'exit');
    }
    inspector?.close();
    await mf?.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`workers-heap: GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fleet's keys through the API, REGISTER_CONCURRENCY at a time; any answer but 201 fails the run. */
async function registerKeys(url: string, fleet: readonly { name: string; publicKey: string }[]): Promise<number> {
  const started = performance.now();
  let next = 0;
  const register = async () => {
    while (next < fleet.length) {
      const agent = fleet[next++] as { name: string; publicKey: string };
      const response = await fetch(`${url}/api/v1/edge/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ publicKey: agent.publicKey, label: agent.name }),
      });
      const text = await response.text();
      if (response.status !== 201)
        throw new Error(`workers: key registration answered ${response.status}: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: REGISTER_CONCURRENCY }, register));
  return performance.now() - started;
}

/** Synced: every agent connected, and the container list totals the whole fleet. */
async function waitForSync(
  url: string,
  generator: Generator,
  shape: Shape,
  inspector: WorkerdInspector,
): Promise<{ syncedAt: number; peakSample: number; signedInAt: number }> {
  const containers = shape.agents * shape.containersPerAgent;
  const deadline = Date.now() + SYNC_TIMEOUT_MS;
  let peakSample = 0;
  let signedInAt: number | undefined;
  while (Date.now() < deadline) {
    peakSample = Math.max(peakSample, (await inspector.heapNow()).usedSize);
    const ended = generator.events.filter((event) => event.event === 'closed');
    if (ended.length > 0)
      throw new Error(`workers-heap: ${ended.length} sessions ended early, first: ${JSON.stringify(ended[0])}`);
    const agents = (await getJson<{ data: { connected: boolean }[] }>(`${url}/api/v1/agents`)).data;
    if (agents.filter((agent) => agent.connected).length === shape.agents) {
      signedInAt ??= Date.now();
      const { total } = await getJson<{ total: number }>(`${url}/api/v1/containers?limit=1`);
      if (total === containers) return { syncedAt: Date.now(), peakSample, signedInAt };
    }
    await sleep(POLL_MS);
  }
  throw new Error(`workers-heap: not synced within ${SYNC_TIMEOUT_MS} ms`);
}

/** Sequential requests on one client, after a warm-up: the object's own latency, not a queue's. */
async function timeList(url: string, requests: number): Promise<{ latencies: number[]; pageBytes: number }> {
  let pageBytes = 0;
  const latencies: number[] = [];
  for (let i = -20; i < requests; i++) {
    const started = performance.now();
    const response = await fetch(url + LIST_PATH);
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (!response.ok) throw new Error(`workers-heap: ${LIST_PATH} answered ${response.status}`);
    if (i < 0) continue;
    latencies.push(elapsed);
    pageBytes = Buffer.byteLength(text);
  }
  return { latencies, pageBytes };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const share = (bytes: number) => `${((bytes / OBJECT_MEMORY_LIMIT) * 100).toFixed(0)} % of 128 MB`;

function report(shape: Shape, m: Measured): string {
  const total = shape.agents * shape.containersPerAgent;
  const heapRow = (label: string, heap: HeapUsage, bold = false) => {
    const used = formatBytes(heap.usedSize);
    return [label, bold ? `**${used}**` : used, formatBytes(heap.totalSize), share(heap.usedSize)];
  };
  const heap = markdownTable(
    [
      m.synced.collected
        ? 'object isolate, after a full GC'
        : 'object isolate, lowest of 7 idle samples (no forced GC)',
      'used',
      'heap reserved',
      'of the limit',
    ],
    [
      heapRow('empty object (started, no agents)', m.empty),
      heapRow(`${formatCount(shape.agents)} edge keys registered`, m.keysRegistered),
      heapRow(
        `**synced**: ${formatCount(shape.agents)} agents connected, ${formatCount(total)} containers`,
        m.synced,
        true,
      ),
      heapRow(`after ${formatCount(shape.requests)} container list requests`, m.afterList),
      [
        `highest sample during the sync (no forced GC, every ${POLL_MS} ms)`,
        formatBytes(m.peakSample),
        '',
        share(m.peakSample),
      ],
    ],
    ['left', 'right', 'right', 'right'],
  );
  const latency = markdownTable(
    ['`GET /api/v1/containers?limit=200`', 'p50', 'p99', 'max'],
    [
      [
        `${formatCount(total)} containers, ${formatCount(m.latencies.length)} sequential requests, ${(m.pageBytes / 1024).toFixed(0)} KiB a page`,
        `**${ms(percentile(m.latencies, 50))}**`,
        `**${ms(percentile(m.latencies, 99))}**`,
        ms(Math.max(...m.latencies)),
      ],
    ],
    ['left', 'right', 'right', 'right'],
  );
  const seconds = (value: number) => `${(value / 1000).toFixed(1)} s`;
  const rate = (value: number) => `${(shape.agents / (value / 1000)).toFixed(0)} agents/s`;
  const gateways =
    shape.shards === 0
      ? "The agents' sockets end in the hub object itself (`DD_EDGE_GATEWAY_SHARDS=0`)."
      : `The agents' sockets end in ${shape.shards} edge gateway objects (\`DD_EDGE_GATEWAY_SHARDS=${shape.shards}\`), each agent in the gateway of its name's shard; the gateways sign the agents in and forward their snapshots to the hub object in batches. All objects of a Worker share one isolate under Miniflare, so "used" below is the hub object **and** the ${shape.shards} gateways.`;
  const pace = markdownTable(
    ['', 'time', 'rate'],
    [
      [
        `${formatCount(shape.agents)} edge keys registered first (\`POST /api/v1/edge/keys\`, ${REGISTER_CONCURRENCY} in flight)`,
        seconds(m.registerMs),
        `${(shape.agents / (m.registerMs / 1000)).toFixed(0)} keys/s`,
      ],
      [
        `every agent listed connected (${formatCount(shape.agents)}), from the generator's start`,
        seconds(m.signedInMs),
        rate(m.signedInMs),
      ],
      [
        `**synced**: every container listed (${formatCount(total)}), from the generator's start`,
        `**${seconds(m.syncedMs)}**`,
        `**${rate(m.syncedMs)}**`,
      ],
    ],
    ['left', 'right', 'right'],
  );
  const throughput = markdownTable(
    ['10 connections, 5 s (autocannon, after a 2 s warm-up)', 'requests/s', 'p99', 'non-2xx'],
    m.throughput.map((row) => [`\`GET ${row.path}\``, `**${row.rps.toFixed(0)}**`, ms(row.p99), String(row.non2xx)]),
    ['left', 'right', 'right', 'right'],
  );
  return [
    gateways,
    '',
    pace,
    '',
    `The hub's Worker bundle (\`buildWorkersBundle\`, the one \`npm run deploy:workers\` uploads) under workerd through Miniflare, with SQLite-backed Durable Object storage in a temp dir. ${formatCount(shape.agents)} edge keys registered through \`POST /api/v1/edge/keys\` (${REGISTER_CONCURRENCY} in flight), then ${formatCount(shape.agents)} live agents with ${shape.containersPerAgent} containers each, played by the edge benchmark's load generator (bench/support/edge-load-generator.ts, its own process: one WebSocket per agent to Miniflare's loopback port, signed sign-in, one full snapshot, heartbeats; at most ${shape.connectConcurrency} handshakes in flight). Synced (after ${(m.syncedMs / 1000).toFixed(1)} s): every agent connected and \`GET /api/v1/containers\` totals ${formatCount(total)}. The heap is read from the isolate that hosts the object (\`core:user:\`) through workerd's inspector (\`inspectorPort\`, V8's \`HeapProfiler.collectGarbage\` then \`Runtime.getHeapUsage\`). Knobs: \`BENCH_WORKERS_AGENTS\`, \`BENCH_WORKERS_CONTAINERS\`, \`BENCH_WORKERS_REQUESTS\`, \`BENCH_WORKERS_CONNECT_CONCURRENCY\`.`,
    '',
    heap,
    '',
    latency,
    '',
    throughput,
    '',
    ...(m.synced.collected
      ? []
      : [
          "- workerd's inspector did not answer `HeapProfiler.collectGarbage` with the gateway class bound, so each heap figure is the lowest of 7 samples 0.5 s apart with the object idle (V8 collects when idle): an upper bound of the live heap.",
        ]),
    `- Limit: ${m.synced.usedSize < OBJECT_MEMORY_LIMIT ? 'within' : '**over**'} a Durable Object's 128 MB with the fleet synced. "used" is V8's JS heap (\`usedSize\`); workerd's own buffers (sockets, SQLite pages) are outside it. A sample without a forced GC includes garbage not yet collected: V8 collects before it would pass the limit.`,
    shape.shards > 0
      ? `- The figures hold the ${shape.shards} gateways too (one isolate under Miniflare; on the platform each object may have its own): the hub object's own share at a given fleet is the \`workers-heap\` run, with the sockets in the hub object.`
      : `- Per container, with its agent's share: ${((m.synced.usedSize - m.keysRegistered.usedSize) / total / 1024).toFixed(1)} KiB of heap (synced minus keys registered, over ${formatCount(total)}). Read linearly, the object would reach 128 MB at about ${formatCount(Math.floor((OBJECT_MEMORY_LIMIT - m.keysRegistered.usedSize) / ((m.synced.usedSize - m.keysRegistered.usedSize) / total) / 1000) * 1000)} containers of the same shape: an extrapolation, not a measure.`,
    `- Latency is measured from this machine's Node client through Miniflare's entry Worker, which buffers the request and forwards it to the object: the route's work, the object's call and two local HTTP hops, on 2 cores shared with other work (the p99 moves with it). \`GET /api/v1/agents\` with ${formatCount(shape.agents)} agents took ${ms(m.agentsPageMs)} once.`,
  ].join('\n');
}
