import { type HubProcess as SpawnedHub, startHubProcess as spawnListeningHub } from '../../test/support/hub-process';
import { type ProcessSample, sampleProcess } from './proc-stats';

export interface HubProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  pid: number;
  /** RSS and CPU time of the hub process itself, from /proc. */
  sample(): ProcessSample;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process has exited. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartHubOptions {
  /** Added to (and overriding) the benchmark defaults. */
  env?: Record<string, string>;
  startTimeoutMs?: number;
}

// The server-wide request limit (1,000 per 15 minutes per client by default) raised out of reach:
// one load generator is one client, and its 429s would measure the limiter's refusals, not the
// routes. The limiter still counts every request.
const BENCH_DEFAULTS = { DD_STORE_DRIVER: 'memory', DD_LOG_FORMAT: 'json', DD_SERVER_RATELIMIT_MAX: '1000000000' };

/** The real hub process (the same launcher the integration tests use), plus /proc sampling. */
export async function startHubProcess(options: StartHubOptions = {}): Promise<HubProcess> {
  const hub: SpawnedHub = await spawnListeningHub(
    { ...BENCH_DEFAULTS, ...options.env },
    options.startTimeoutMs ?? 30_000,
  );
  const pid = hub.child.pid as number;
  return {
    url: hub.url,
    pid,
    sample: () => sampleProcess(pid),
    async stop() {
      await hub.kill('SIGTERM');
    },
  };
}
