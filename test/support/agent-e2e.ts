/**
 * The hub calls the agent end-to-end tests (edge-e2e, listen-e2e) both make about one agent: wait
 * for it listed connected (or not), and refresh its watcher's inventory through it.
 */
import { expect } from 'vitest';
import type { Agent } from '../../shared/schemas/agent';
import type { Container } from '../../shared/schemas/container';
import { waitFor } from './edge-peer';

type Json = <T>(path: string, init?: RequestInit) => Promise<T>;

/** The agent `name` once the hub lists it with connected === expected. */
export function agentConnected(json: Json, name: string, expected: boolean, timeoutMs: number): Promise<Agent> {
  return waitFor(
    async () => {
      const listed = (await json<{ data: Agent[] }>('/api/v1/agents')).data.find((agent) => agent.name === name);
      return listed?.connected === expected ? listed : undefined;
    },
    timeoutMs,
    `${name} connected=${expected}`,
  );
}

/**
 * POST /api/v1/watchers/docker/local/<agent>/inventory (http-interface §4.3), asserting the answer
 * names that agent's watcher, has no errors and is authoritative; answers its containers.
 */
export async function refreshAgentInventory(json: Json, agent: string): Promise<Container[]> {
  const result = await json<{
    context: { source: unknown };
    containers: Container[];
    errors: unknown[];
    authoritative: boolean;
  }>(`/api/v1/watchers/docker/local/${agent}/inventory`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(result.context.source).toEqual({ type: 'docker', name: 'local', agent });
  expect(result.errors).toEqual([]);
  expect(result.authoritative).toBe(true);
  return result.containers;
}
