import { type KeyRatio, measureKeyRatio, mintReadKey } from './http-throughput-key-ratio';
import {
  type Align,
  type BenchContext,
  type Benchmark,
  type BenchSection,
  formatBytes,
  formatCount,
  formatMs,
  markdownTable,
  positiveIntegerEnv,
} from './support/benchmark';
import { startHubProcess } from './support/hub-process';
import { DEFAULT_WARMUP_SECONDS, type LoadResult, runLoad } from './support/load';
import { cpuShare, machineBusyShare, type ProcessSample, sampleMachineCpu } from './support/proc-stats';

interface Scenario {
  label: string;
  method: 'GET' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Headers that need the running hub first (an API key is minted through its own API). */
  prepare?: (hubUrl: string) => Promise<Record<string, string>>;
}

const SCENARIOS: readonly Scenario[] = [
  { label: 'GET /health', method: 'GET', path: '/health' },
  { label: 'GET /api/v1/settings', method: 'GET', path: '/api/v1/settings' },
  {
    label: 'GET /api/v1/settings with an API key',
    method: 'GET',
    path: '/api/v1/settings',
    prepare: async (hubUrl) => ({ authorization: `Bearer ${await mintReadKey(hubUrl)}` }),
  },
  // The mutation reference: validation, the serial write queue and a store write per request.
  {
    label: 'PATCH /api/v1/settings',
    method: 'PATCH',
    path: '/api/v1/settings',
    headers: { 'content-type': 'application/json' },
    body: '{"updateMode":"manual"}',
  },
];

interface Measured {
  scenario: Scenario;
  load: LoadResult;
  hubCpu: number;
  machineCpu: number;
  idle: ProcessSample;
  after: ProcessSample;
}

interface LoadShape {
  durationSeconds: number;
  connections: number;
}

export const httpThroughput: Benchmark = {
  name: 'http-throughput',
  async run(ctx) {
    const shape = {
      durationSeconds: positiveIntegerEnv('BENCH_DURATION', 10),
      connections: positiveIntegerEnv('BENCH_CONNECTIONS', 50),
    };
    const measured: Measured[] = [];
    for (const scenario of SCENARIOS) {
      const result = await measureScenario(ctx, scenario, shape);
      measured.push(result);
      ctx.log(
        `${scenario.label}: ${formatCount(result.load.requestsPerSecond.mean)} req/s, p99 ${result.load.latencyMs.p99} ms`,
      );
    }
    const keyRatio = await measureKeyRatio(ctx, shape.connections);
    ctx.log(
      `key versus anonymous: ${keyRatio.median.toFixed(2)}× (median; ${keyRatio.min.toFixed(2)}–${keyRatio.max.toFixed(2)}), CPU per request ${keyRatio.cpuMicrosPerRequest.ratio.toFixed(2)}×`,
    );
    return report(ctx, measured, shape, keyRatio);
  },
};

/**
 * A fresh hub per route: under sustained load the hub's heap keeps growing until it idles, so a
 * shared hub would make each route pay for the garbage of the routes measured before it.
 */
async function measureScenario(ctx: BenchContext, given: Scenario, shape: LoadShape): Promise<Measured> {
  const hub = await startHubProcess();
  try {
    const scenario = given.prepare
      ? { ...given, headers: { ...given.headers, ...(await given.prepare(hub.url)) } }
      : given;
    const idle = hub.sample();
    await preflight(hub.url, scenario);
    ctx.log(`${scenario.label}: hub pid ${hub.pid}, ${shape.durationSeconds} s at ${shape.connections} connections`);
    let before = { hub: idle, machine: sampleMachineCpu() };
    const load = await runLoad({
      root: ctx.root,
      url: hub.url + scenario.path,
      ...shape,
      ...requestOf(scenario),
      // After the warm-up, so the CPU shares cover the measured run only.
      onMeasureStart: () => {
        before = { hub: hub.sample(), machine: sampleMachineCpu() };
      },
    });
    const after = hub.sample();
    const machineCpu = machineBusyShare(before.machine, sampleMachineCpu());
    return { scenario, load, hubCpu: cpuShare(before.hub, after), machineCpu, idle, after };
  } finally {
    await hub.stop();
  }
}

function requestOf(scenario: Scenario): { method: string; headers?: Record<string, string>; body?: string } {
  return {
    method: scenario.method,
    ...(scenario.headers === undefined ? {} : { headers: scenario.headers }),
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
  };
}

/** One request first: a route that answers 4xx would otherwise be benchmarked as a fast error path. */
async function preflight(url: string, scenario: Scenario): Promise<void> {
  const init: RequestInit = { method: scenario.method };
  if (scenario.headers !== undefined) init.headers = scenario.headers;
  if (scenario.body !== undefined) init.body = scenario.body;
  const response = await fetch(url + scenario.path, init);
  const text = await response.text();
  if (!response.ok)
    throw new Error(`bench.http-throughput: ${scenario.label} answered ${response.status}: ${text.slice(0, 200)}`);
}

function report(ctx: BenchContext, measured: readonly Measured[], shape: LoadShape, keyRatio: KeyRatio): BenchSection {
  const table = markdownTable(
    [
      'Route',
      'req/s (mean)',
      'p50',
      'p97.5',
      'p99',
      'max',
      'non-2xx',
      'errors',
      'hub CPU',
      'machine CPU',
      'hub RSS after',
    ],
    measured.map(({ scenario, load, hubCpu, machineCpu, after }) => [
      scenario.label,
      formatCount(load.requestsPerSecond.mean),
      formatMs(load.latencyMs.p50),
      formatMs(load.latencyMs.p97_5),
      formatMs(load.latencyMs.p99),
      formatMs(load.latencyMs.max),
      formatCount(load.non2xx),
      formatCount(load.errors),
      percent(hubCpu),
      percent(machineCpu),
      formatBytes(after.rssBytes),
    ]),
    ['left', ...Array<Align>(10).fill('right')],
  );
  const rate = (label: string) =>
    measured.find((entry) => entry.scenario.label === label)?.load.requestsPerSecond.mean ?? Number.NaN;
  const health = rate('GET /health');
  const idleRssValues = measured.map(({ idle }) => idle.rssBytes);
  const idleRss = `${formatBytes(Math.min(...idleRssValues))}–${formatBytes(Math.max(...idleRssValues))}`;
  const peakRss = Math.max(...measured.map(({ after }) => after.peakRssBytes));
  const ratio = (label: string) => `${(rate(label) / health).toFixed(2)}×`;
  return {
    title: 'HTTP throughput',
    markdown: `Requests per second the hub serves on one route at a time: the real hub process (\`node --import tsx
hub/src/entry/node.ts\`, memory store, log level info, anonymous) under autocannon in a second process, a fresh
hub for each route, ${shape.connections} connections for ${shape.durationSeconds} s per route after a ${DEFAULT_WARMUP_SECONDS} s warm-up.
Set \`BENCH_DURATION\` (seconds) and \`BENCH_CONNECTIONS\` for a quicker or heavier run.

${table}

- Throughput relative to \`GET /health\`: settings read ${ratio('GET /api/v1/settings')}, settings write
  ${ratio('PATCH /api/v1/settings')}. The ratio shows what routing, validation and the store add, and travels
  across machines better than the absolute figures.
- **With an API key versus anonymous**, same route: **${keyRatio.median.toFixed(2)}×** (target at least 0.9), the median of
  ${keyRatio.rounds.length} rounds in which two hubs, one per caller, are measured in alternating ${keyRatio.sliceSeconds} s slices (ABBA order) so
  that other load on the machine slows both alike (range ${keyRatio.min.toFixed(2)}–${keyRatio.max.toFixed(2)}; all keyed requests over all anonymous
  ones ${keyRatio.pooled.toFixed(2)}×). Hub CPU time per request, which such load disturbs less: ${keyRatio.cpuMicrosPerRequest.anonymous.toFixed(1)} µs anonymous,
  ${keyRatio.cpuMicrosPerRequest.keyed.toFixed(1)} µs with the key, **${keyRatio.cpuMicrosPerRequest.ratio.toFixed(2)}×** for a hub with a core to itself. The two rows of the
  table, measured one after the other, give ${(rate('GET /api/v1/settings with an API key') / rate('GET /api/v1/settings')).toFixed(2)}×. Load average (1 min) at the start and the end of
  the rounds: ${keyRatio.loadAverage.start.toFixed(2)} and ${keyRatio.loadAverage.end.toFixed(2)} (the hub and autocannon themselves account for about 2). Rounds, anonymous / keyed
  req/s: ${keyRatio.rounds.map((round) => `${formatCount(round.anonymous.requestsPerSecond)} / ${formatCount(round.keyed.requestsPerSecond)}`).join(', ')}. \`BENCH_KEY_ROUNDS\` sets the number of rounds.
- What a keyed request adds: its credential parsed, the secret compared in constant time with the one
  verified (a SHA-256 against the stored digest) in the last 5 minutes, the key's record read so that
  revocation and expiry apply at once, the key's own request limit counted, and its use recorded. An
  anonymous request is counted by the server-wide limit instead (\`DD_SERVER_RATELIMIT_MAX\`, raised out
  of reach here: one load generator is one client).
- Where the key's time went (\`npx tsx bench/profile-api-key.ts\` profiles the hub under both loads and lists
  each function's CPU time per request, key minus anonymous): at 0.81× the key path cost about 5 µs more
  per request, and the largest part, about 2 µs, was recording the key's use (a \`Date\`, \`toISOString\`
  and a copy of the key's record on every request), then splitting the credential on \`_\` and testing its
  parts (0.5 µs) and the Bearer regex. A use is now a number in a map, formatted only when the key is
  listed or stored; the credential is read by one anchored pattern; one clock reading serves the checks
  of a request; the limiters answer "allowed" with one shared object; a key's expiry is parsed once per
  record. In process (\`app.fetch\`, the two callers in alternating blocks), key minus anonymous went from
  4.7–5.8 µs to 0.6–1.3 µs per request.
- The load generator and the hub share the same ${ctx.machine.cores} cores, so these figures are lower bounds.
  "hub CPU" is the hub process's CPU time during the run as a share of one core (Node serves requests on
  one thread; more than 100 % is garbage collection and libuv threads); "machine CPU" is the share of all
  ${ctx.machine.cores} cores that were busy (hub, autocannon and anything else running). Near 100 % means the machine,
  not the hub, set the limit.
- Latencies are whole milliseconds (autocannon's resolution).
- Hub memory: RSS ${idleRss} idle after start; "hub RSS after" is taken right after each route's
  warm-up and measured run (peak ${formatBytes(peakRss)}).`,
  };
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}
