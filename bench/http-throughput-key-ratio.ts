import { readFileSync } from 'node:fs';
import type { BenchContext } from './support/benchmark';
import { positiveIntegerEnv } from './support/benchmark';
import { type HubProcess, startHubProcess } from './support/hub-process';
import { DEFAULT_WARMUP_SECONDS, runLoad } from './support/load';

export const KEY_RATIO_PATH = '/api/v1/settings';
const SLICE_SECONDS = 3;

export interface Slice {
  requestsPerSecond: number;
  /** Hub CPU time (user + system) per request: what other load on the machine disturbs least. */
  cpuMicrosPerRequest: number;
}

export interface KeyRatioRound {
  anonymous: Slice;
  keyed: Slice;
}

export interface KeyRatio {
  rounds: KeyRatioRound[];
  sliceSeconds: number;
  /** Median of the per-round ratios (keyed ÷ anonymous). */
  median: number;
  min: number;
  max: number;
  /** All keyed requests over all anonymous ones. */
  pooled: number;
  /** Hub CPU per request over all rounds, and anonymous ÷ keyed: the throughput ratio of a hub with a core to itself. */
  cpuMicrosPerRequest: { anonymous: number; keyed: number; ratio: number };
  /** The 1-minute load average when the rounds began and ended: how much else wanted the cores. */
  loadAverage: { start: number; end: number };
}

function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/**
 * A `read` key minted in the anonymous hub. Its own limit is raised: the default of 1,000 requests
 * per 15 minutes would turn a load run into 429s, which measures the limiter, not authentication.
 */
export async function mintReadKey(hubUrl: string): Promise<string> {
  const response = await fetch(`${hubUrl}/api/v1/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['read'], rateLimitMax: 1_000_000 }),
  });
  if (response.status !== 201)
    throw new Error(`bench: minting an API key answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { apiKey: string }).apiKey;
}

interface Target {
  hub: HubProcess;
  headers?: Record<string, string>;
}

async function measureSlice(ctx: BenchContext, target: Target, seconds: number, connections: number): Promise<Slice> {
  const before = target.hub.sample();
  const load = await runLoad({
    root: ctx.root,
    url: target.hub.url + KEY_RATIO_PATH,
    durationSeconds: seconds,
    connections,
    warmupSeconds: 0,
    ...(target.headers && { headers: target.headers }),
  });
  const after = target.hub.sample();
  if (load.non2xx > 0 || load.errors > 0)
    throw new Error(`bench.http-throughput: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
  const cpuMs = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  return { requestsPerSecond: load.requestsPerSecond.mean, cpuMicrosPerRequest: (cpuMs * 1000) / load.totalRequests };
}

/**
 * The same route with a key and without, on two hubs measured in alternating slices (ABBA order),
 * so that whatever else runs on the machine meanwhile slows both alike: measured one after the
 * other, 10 s each, the ratio swung between 0.64 and 1.12 on a busy 2-core machine.
 */
export async function measureKeyRatio(ctx: BenchContext, connections: number): Promise<KeyRatio> {
  const roundCount = positiveIntegerEnv('BENCH_KEY_ROUNDS', 6);
  const anonymous: Target = { hub: await startHubProcess() };
  let keyed: Target | undefined;
  try {
    keyed = { hub: await startHubProcess() };
    keyed.headers = { authorization: `Bearer ${await mintReadKey(keyed.hub.url)}` };
    const both = [anonymous, keyed];
    ctx.log(`key versus anonymous: ${roundCount} rounds of ${SLICE_SECONDS} s slices at ${connections} connections`);
    for (const target of both) await measureSlice(ctx, target, DEFAULT_WARMUP_SECONDS, connections);
    const rounds: KeyRatioRound[] = [];
    const start = loadAverage();
    for (let round = 0; round < roundCount; round++) {
      const order = round % 2 === 0 ? both : [keyed, anonymous];
      const measured = new Map<Target, Slice>();
      for (const target of order) measured.set(target, await measureSlice(ctx, target, SLICE_SECONDS, connections));
      rounds.push({ anonymous: measured.get(anonymous) as Slice, keyed: measured.get(keyed) as Slice });
    }
    return { ...summarize(rounds), loadAverage: { start, end: loadAverage() } };
  } finally {
    await anonymous.hub.stop();
    await keyed?.hub.stop();
  }
}

function summarize(rounds: KeyRatioRound[]): Omit<KeyRatio, 'loadAverage'> {
  const ratios = rounds
    .map((round) => round.keyed.requestsPerSecond / round.anonymous.requestsPerSecond)
    .sort((a, b) => a - b);
  const middle = Math.floor(ratios.length / 2);
  const median =
    ratios.length % 2 === 1
      ? (ratios[middle] as number)
      : ((ratios[middle - 1] as number) + (ratios[middle] as number)) / 2;
  const sum = (pick: (round: KeyRatioRound) => number) => rounds.reduce((total, round) => total + pick(round), 0);
  // Every slice lasts as long, so the mean of the per-slice figures weighs each second alike.
  const cpuAnonymous = sum((round) => round.anonymous.cpuMicrosPerRequest) / rounds.length;
  const cpuKeyed = sum((round) => round.keyed.cpuMicrosPerRequest) / rounds.length;
  return {
    rounds,
    sliceSeconds: SLICE_SECONDS,
    median,
    min: ratios[0] as number,
    max: ratios.at(-1) as number,
    pooled: sum((round) => round.keyed.requestsPerSecond) / sum((round) => round.anonymous.requestsPerSecond),
    cpuMicrosPerRequest: { anonymous: cpuAnonymous, keyed: cpuKeyed, ratio: cpuAnonymous / cpuKeyed },
  };
}
