import { join } from 'node:path';
import * as v from 'valibot';
import { runCommand } from '../../test/support/run-command';

export const DEFAULT_WARMUP_SECONDS = 2;

export interface LoadOptions {
  root: string;
  url: string;
  connections: number;
  durationSeconds: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A discarded run first, so JIT compilation and connection set-up do not count; 0 skips it. */
  warmupSeconds?: number;
  /** Called between the warm-up and the measured run, e.g. to take resource samples. */
  onMeasureStart?: () => void;
}

export interface LoadResult {
  requestsPerSecond: { mean: number; p50: number };
  /** Milliseconds; autocannon records whole milliseconds, so sub-millisecond latencies read 0 or 1. */
  latencyMs: { mean: number; p50: number; p97_5: number; p99: number; max: number };
  totalRequests: number;
  non2xx: number;
  /** Connection errors plus timeouts. */
  errors: number;
  statusCodes: Record<string, number>;
}

// Only the fields we report; autocannon's JSON is a trust boundary like any other input.
const AutocannonOutputSchema = v.object({
  errors: v.number(),
  timeouts: v.number(),
  non2xx: v.number(),
  statusCodeStats: v.optional(v.record(v.string(), v.object({ count: v.number() })), {}),
  latency: v.object({ mean: v.number(), p50: v.number(), p97_5: v.number(), p99: v.number(), max: v.number() }),
  requests: v.object({ mean: v.number(), p50: v.number(), total: v.number() }),
});

/**
 * Runs autocannon in its own process, so the load generator's event loop does not compete with
 * the benchmark runner's (it still competes with the hub for the machine's cores).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const warmup = options.warmupSeconds ?? DEFAULT_WARMUP_SECONDS;
  if (warmup > 0) await runAutocannon(options.root, autocannonArgs({ ...options, durationSeconds: warmup }));
  options.onMeasureStart?.();
  const output = await runAutocannon(options.root, autocannonArgs(options));
  const parsed = v.safeParse(AutocannonOutputSchema, output);
  if (!parsed.success) throw new Error(`bench.load: unexpected autocannon output: ${v.summarize(parsed.issues)}`);
  const { latency, requests, statusCodeStats } = parsed.output;
  return {
    requestsPerSecond: { mean: requests.mean, p50: requests.p50 },
    latencyMs: { mean: latency.mean, p50: latency.p50, p97_5: latency.p97_5, p99: latency.p99, max: latency.max },
    totalRequests: requests.total,
    non2xx: parsed.output.non2xx,
    errors: parsed.output.errors + parsed.output.timeouts,
    statusCodes: Object.fromEntries(Object.entries(statusCodeStats).map(([status, stats]) => [status, stats.count])),
  };
}

function autocannonArgs(options: LoadOptions): string[] {
  const args = ['--json', '-c', String(options.connections), '-d', String(options.durationSeconds)];
  if (options.method !== undefined) args.push('-m', options.method);
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (options.body !== undefined) args.push('-b', options.body);
  args.push(options.url);
  return args;
}

/** Spawns the CLI with this same node binary and returns its parsed JSON result line. */
async function runAutocannon(root: string, args: string[]): Promise<unknown> {
  const bin = join(root, 'node_modules', '.bin', 'autocannon');
  const { code, stdout, stderr } = await runCommand(process.execPath, [bin, ...args], { cwd: root });
  if (code !== 0) throw new Error(`bench.load: autocannon exited with code ${code}: ${stderr.trim()}`);
  const lastLine = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(lastLine);
  } catch (error) {
    throw new Error(`bench.load: autocannon printed no JSON result: ${stderr.trim() || lastLine}`, { cause: error });
  }
}
