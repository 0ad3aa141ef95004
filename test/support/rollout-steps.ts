/**
 * The steps the staged rollout tests (rollouts-e2e, rollout-hub-restart, workers-rollout-eviction)
 * share: one app run on every host, agents signed in beside their dockerds, and the waits on a
 * rollout's state. Each test keeps its own hub and what it asserts.
 */
import type { Container } from '../../shared/schemas/container';
import type { Rollout } from '../../shared/schemas/rollout';
import type { TestDockerd } from './docker/start-dockerd';
import { type AppKind, publishApp, pullApp, startWatchedApp } from './docker/update-images';
import { type AgentProcess, signedIn, spawnAgent } from './edge-agent-process';
import { until } from './edge-update-bed';
import type { HubRequest } from './hub-json';
import type { TestRegistry } from './registry/start-registry';

/** The states a rollout ends in (interrupted: a hub that could not resume it). */
export const ROLLOUT_ENDS = ['completed', 'halted', 'aborted', 'interrupted'];

/**
 * Publishes `repository` 1.0.0 and 2.0.0 of those kinds from the first host's dockerd and runs a
 * watched `name` of 1.0.0 on every host; answers the 1.0.0 reference and each host's container id.
 */
export async function runOnEveryHost<Host extends string>(
  dockerds: Record<Host, TestDockerd>,
  hosts: readonly Host[],
  registry: TestRegistry,
  app: { repository: string; name: string; from: AppKind; to: AppKind },
): Promise<{ from: string; oldIds: Record<Host, string> }> {
  const first = dockerds[hosts[0] as Host];
  const from = await publishApp(first, registry, { repository: app.repository, tag: '1.0.0', kind: app.from });
  await publishApp(first, registry, { repository: app.repository, tag: '2.0.0', kind: app.to });
  // Each host's dockerd is its own: pulled and started side by side.
  const oldIds = {} as Record<Host, string>;
  await Promise.all(
    hosts.map(async (host) => {
      await pullApp(dockerds[host], from);
      oldIds[host] = await startWatchedApp(dockerds[host], app.name, from);
    }),
  );
  return { from, oldIds };
}

/**
 * An agent process (`npm run agent`) on its host's dockerd, reconnecting quickly, added to `agents`
 * (the ones afterAll kills) before it signs in; answers it signed in.
 */
export async function spawnHostAgent(
  agents: AgentProcess[],
  host: { hubUrl: string; keyFile: string; name: string; dockerd: TestDockerd },
): Promise<AgentProcess> {
  const agent = spawnAgent({
    hubUrl: host.hubUrl,
    keyFile: host.keyFile,
    name: host.name,
    env: {
      DD_WATCHER_LOCAL_SOCKET: host.dockerd.socketPath,
      DD_EDGE_RECONNECT_MIN_MS: '100',
      DD_EDGE_RECONNECT_MAX_MS: '400',
    },
  });
  agents.push(agent);
  await agent.waitForLog(signedIn, 60_000);
  return agent;
}

type Json = <T>(path: string, init?: RequestInit) => Promise<T>;

/** Asks the hub to watch until every one of `hosts` lists `name` with an update; answers those records. */
export const pendingOnEvery = (request: HubRequest, json: Json, name: string, hosts: readonly string[]) =>
  until(
    async () => {
      await request('/api/v1/containers/watch', { method: 'POST' });
      const { data } = await json<{ data: Container[] }>('/api/v1/containers');
      const listed = data.filter((c) => c.name === name && c.updateAvailable);
      return hosts.every((host) => listed.some((c) => c.agent === host)) ? listed : undefined;
    },
    `${name} pending on every agent`,
    90_000,
    500,
  );

/** The waits on one rollout, read through `json`. */
export function rolloutWaits(json: Json) {
  const rollout = (id: string) => json<Rollout>(`/api/v1/rollouts/${id}`);
  return {
    rollout,
    /** The rollout once its canary succeeded and the pause before the next wave is set. */
    canaryPaused: (id: string, timeoutMs: number, everyMs: number) =>
      until(
        async () => {
          const current = await rollout(id);
          return current.hosts[0]?.state === 'succeeded' && current.nextWaveAt !== undefined ? current : undefined;
        },
        'the canary updated',
        timeoutMs,
        everyMs,
      ),
    /** The rollout once it is in one of `ends`. */
    ended: (id: string, timeoutMs: number, everyMs: number, ends = ROLLOUT_ENDS) =>
      until(
        async () => {
          const current = await rollout(id);
          return ends.includes(current.state) ? current : undefined;
        },
        `rollout ${id} finished`,
        timeoutMs,
        everyMs,
      ),
  };
}
