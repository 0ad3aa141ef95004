import { type NodeHub, startNodeHub } from '../../../hub/src/adapter/node/start-node-hub';
import type { Container } from '../../../shared/schemas/container';
import type { UpdateOperation } from '../../../shared/update-engine';
import { podmanCli } from './podman-app';
import type { TestPodman } from './start-podman';

const SETTLED = ['succeeded', 'rolled-back', 'failed'];

/**
 * The hub as `npm start` runs it, in process, watching the test's podman service as
 * `DD_WATCHER_PM_TYPE=podman` (the watcher `podman.pm`) with a Docker action trigger; `env` adds to
 * or replaces its variables.
 */
export function startPodmanHub(podman: TestPodman, env: Record<string, string> = {}): Promise<NodeHub> {
  return startNodeHub({
    env: {
      DD_STORE_DRIVER: 'memory',
      DD_SERVER_PORT: '0',
      DD_SERVER_HOST: '127.0.0.1',
      DD_SERVER_RATELIMIT_MAX: '1000000000',
      DD_LOCAL_WATCHER: 'false',
      DD_WATCHER_PM_TYPE: 'podman',
      DD_WATCHER_PM_SOCKET: podman.socketPath,
      DD_WATCHER_PM_JITTER: '0',
      ...env,
    },
    sink: () => undefined,
    deps: { updates: { timing: { pollMs: 100, startSettleMs: 500 } } },
  });
}

/** What the Podman tests ask the hub and podman, for the hub and service their `beforeAll` started. */
export function podmanHubClient(hub: () => NodeHub, podman: () => TestPodman) {
  const api = (path: string, init?: RequestInit) => fetch(`${hub().url}${path}`, init);
  const json = async <T>(path: string, init?: RequestInit) => (await api(path, init)).json() as Promise<T>;
  /** Settled (then the hub's update jobs idle), or an error naming where it stopped. */
  async function settled(id: string, timeoutMs = 60_000): Promise<UpdateOperation> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await json<UpdateOperation>(`/api/v1/update-operations/${id}`);
      if (SETTLED.includes(current.status)) {
        await hub().hub.parts.updates.idle();
        return current;
      }
      if (Date.now() > deadline) throw new Error(`operation ${id} still ${current.status}/${current.phase}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  /** The operation id of an accepted request (the status it must answer), else a failed expectation. */
  async function accepted(response: Response, status: number): Promise<string> {
    if (response.status !== status) throw new Error(`answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { operationId: string }).operationId;
  }
  return {
    api,
    json,
    settled,
    /** `POST /containers/{id}/update` (202), followed until it settles. */
    update: async (id: string, timeoutMs?: number) =>
      settled(await accepted(await api(`/api/v1/containers/${id}/update`, { method: 'POST' }), 202), timeoutMs),
    /** `POST /containers/{id}/rollback` to its latest backup (200), followed until it settles. */
    rollback: async (id: string) =>
      settled(
        await accepted(
          await api(`/api/v1/containers/${id}/rollback`, {
            method: 'POST',
            headers: { 'X-DD-Confirm-Action': 'container-rollback' },
          }),
          200,
        ),
      ),
    byName: async (name: string) =>
      (await json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name),
    podmanCli: (...args: string[]) => podmanCli(podman(), ...args),
    /** `podman container inspect` of one container, as podman itself reports it. */
    inspect: async <T = PodmanInspect>(name: string): Promise<T> =>
      JSON.parse(await podmanCli(podman(), 'container', 'inspect', name))[0] as T,
  };
}

/** The fields of `podman container inspect` the tests read. */
export interface PodmanInspect {
  Id: string;
  Pod: string;
  Config: { Image: string; Env: string[] };
  State: { Running: boolean; Pid: number; Health?: { Status: string } };
}
