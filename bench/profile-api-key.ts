import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintReadKey } from './http-throughput-key-ratio';
import { positiveIntegerEnv } from './support/benchmark';
import { type ProfileSummary, startProfiledHub, summarizeProfile } from './support/cpu-profile';
import { runLoad } from './support/load';

/**
 * Where a request with an API key spends the time an anonymous one does not: the hub under V8's
 * sampling profiler, GET /api/v1/settings under autocannon with and without a `read` key, and the
 * CPU time per request of each function in both runs, largest difference first. A diagnostic, not
 * a section of docs/benchmarks.md: `npx tsx bench/profile-api-key.ts`.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PATH = '/api/v1/settings';

interface Run {
  summary: ProfileSummary;
  requests: number;
  requestsPerSecond: number;
}

type Kind = 'anon' | 'key' | 'pad';

/** `pad`: anonymous, with a header as long as the key's, to tell the bytes on the wire from the work of checking them. */
async function headersFor(kind: Kind, hubUrl: string): Promise<Record<string, string> | undefined> {
  if (kind === 'anon') return undefined;
  const value = `Bearer ${await mintReadKey(hubUrl)}`;
  return kind === 'key' ? { authorization: value } : { 'x-padding-xx': value.replace(/./g, 'x') };
}

async function profileRun(kind: Kind, seconds: number, connections: number): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'dd-profile-'));
  try {
    const hub = await startProfiledHub(
      ROOT,
      {
        DD_STORE_DRIVER: 'memory',
        DD_LOG_FORMAT: 'json',
        DD_LOCAL_WATCHER: 'false',
        DD_SERVER_RATELIMIT_MAX: '1000000000',
      },
      dir,
    );
    let profile: string;
    let load: Awaited<ReturnType<typeof runLoad>>;
    try {
      const headers = await headersFor(kind, hub.url);
      load = await runLoad({
        root: ROOT,
        url: hub.url + PATH,
        connections,
        durationSeconds: seconds,
        ...(headers && { headers }),
      });
      if (load.non2xx > 0) throw new Error(`bench.profile: ${load.non2xx} answers were not 2xx`);
    } finally {
      profile = await hub.stop();
    }
    return {
      summary: await summarizeProfile(profile, ROOT, seconds * 1000),
      requests: load.totalRequests,
      requestsPerSecond: load.requestsPerSecond.mean,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Microseconds of CPU per request spent in each function (self or total). */
function perRequest(run: Run, kind: 'self' | 'total'): Map<string, number> {
  return new Map(
    [...run.summary[kind]].map(([frame, share]) => [frame, (share * run.summary.busyMs * 1000) / run.requests]),
  );
}

function differences(anonymous: Run, keyed: Run, kind: 'self' | 'total', count: number): string[] {
  const a = perRequest(anonymous, kind);
  const k = perRequest(keyed, kind);
  const frames = new Set([...a.keys(), ...k.keys()]);
  return [...frames]
    .map((frame) => ({ frame, a: a.get(frame) ?? 0, k: k.get(frame) ?? 0 }))
    .sort((x, y) => Math.abs(y.k - y.a) - Math.abs(x.k - x.a))
    .slice(0, count)
    .map(
      ({ frame, a: av, k: kv }) =>
        `${(kv - av).toFixed(2).padStart(7)} µs  (${av.toFixed(2)} → ${kv.toFixed(2)})  ${frame}`,
    );
}

async function main(): Promise<void> {
  const seconds = positiveIntegerEnv('BENCH_DURATION', 10);
  const connections = positiveIntegerEnv('BENCH_CONNECTIONS', 50);
  // `anon anon` or `key key` instead of the default `anon key` shows how much of a difference is noise.
  const [first, second] = process.argv.slice(2).map((arg): Kind => (arg === 'key' || arg === 'pad' ? arg : 'anon'));
  const anonymous = await profileRun(first ?? 'anon', seconds, connections);
  const keyed = await profileRun(second ?? 'key', seconds, connections);
  const busyPerRequest = (run: Run) => ((run.summary.busyMs * 1000) / run.requests).toFixed(1);
  const lines = [
    `${first ?? 'anon'}: ${Math.round(anonymous.requestsPerSecond)} req/s, ${busyPerRequest(anonymous)} µs CPU per request (profiled)`,
    `${second ?? 'key'}: ${Math.round(keyed.requestsPerSecond)} req/s, ${busyPerRequest(keyed)} µs CPU per request (profiled)`,
    `ratio ${(keyed.requestsPerSecond / anonymous.requestsPerSecond).toFixed(2)}×`,
    '',
    'self time per request, key minus anonymous:',
    ...differences(anonymous, keyed, 'self', 30),
    '',
    'total time per request, key minus anonymous:',
    ...differences(anonymous, keyed, 'total', 40),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

void main();
