import { describe, expect, it } from 'vitest';
import type { DockerContainerDetails, UpdatableDockerHost } from '../docker/docker-host';
import type { UpdateOperation } from './operation';
import { restoreOnceReachable } from './restore';

/**
 * An Engine in memory that can be away (every call fails as a refused socket would) for a number of
 * calls: the state an update leaves when a dockerd restart interrupts it, the old container under
 * its temporary name and running again by its restart policy, the new one under the name.
 */
function engineAfterRestart(awayForCalls: number) {
  const containers = new Map<string, { name: string; state: 'running' | 'exited' }>([
    ['old', { name: 'web-old-1', state: 'running' }],
    ['new', { name: 'web', state: 'running' }],
  ]);
  let away = awayForCalls;
  const calls: string[] = [];
  const reachable = (call: string) => {
    calls.push(call);
    if (away > 0) {
      away -= 1;
      throw new Error('connect ECONNREFUSED /var/run/docker.sock');
    }
  };
  const details = (id: string): DockerContainerDetails | undefined => {
    const found = containers.get(id) ?? [...containers].find(([, c]) => c.name === id)?.[1];
    const key = containers.get(id) ? id : [...containers].find(([, c]) => c.name === id)?.[0];
    if (!found || !key) return undefined;
    return {
      id: key,
      name: found.name,
      image: 'web:1',
      imageId: 'sha256:1',
      state: found.state,
      labels: {},
      createdAt: 0,
      env: [],
      restartCount: 0,
    };
  };
  const host = {
    ping: async () => reachable('ping'),
    inspectContainer: async (id: string) => {
      reachable('inspect');
      return details(id);
    },
    forceRemoveContainer: async (id: string) => {
      reachable('remove');
      containers.delete(id);
    },
    renameContainer: async (id: string, name: string) => {
      reachable('rename');
      const found = containers.get(id);
      if (found) found.name = name;
    },
    start: async (id: string) => {
      reachable('start');
      const found = containers.get(id);
      if (found) found.state = 'running';
    },
  } as unknown as UpdatableDockerHost;
  return { host, containers, calls };
}

const OPERATION = {
  containerId: 'old',
  containerName: 'web',
  newContainerId: 'new',
  oldWasRunning: true,
  createdAt: new Date(0).toISOString(),
} as UpdateOperation;

describe('restoreOnceReachable', () => {
  it('waits for an Engine that went away mid-rollback, then puts the old container back', async () => {
    // The first inspect and two pings fail: the daemon is restarting.
    const engine = engineAfterRestart(3);
    expect(await restoreOnceReachable(OPERATION, engine.host, 10_000)).toBe(true);
    expect([...engine.containers]).toEqual([['old', { name: 'web', state: 'running' }]]);
    expect(engine.calls.filter((call) => call === 'ping')).toHaveLength(3);
  });

  it('gives up with the Engine error once the Engine stays away past the wait', async () => {
    const engine = engineAfterRestart(Number.POSITIVE_INFINITY);
    await expect(restoreOnceReachable(OPERATION, engine.host, 50)).rejects.toThrow(/ECONNREFUSED/);
    expect(engine.containers.size).toBe(2);
  });

  it('does not try again a refusal of its own (the old container gone)', async () => {
    const engine = engineAfterRestart(0);
    engine.containers.delete('old');
    await expect(restoreOnceReachable(OPERATION, engine.host, 10_000)).rejects.toThrow(/is gone/);
    expect(engine.calls.filter((call) => call === 'ping')).toEqual([]);
  });
});
