import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { describeListenAgent } from '../../../hub/src/listen/listen-ack';
import { AgentWatcherSchema } from '../../../shared/agent-api/listen-schemas';
import { useDockerlessListenAgent } from '../../../test/support/dockerless-listen-agent';

const SECRET = 'watcher-routes-secret-0123456789';

/**
 * A listen-mode agent's watchers say their Engine type (docs/sources.md "Podman", on edge agents):
 * a Podman watcher is listed as `podman.<name>`, and the hub that reads the list types it so, as an
 * edge agent's hello does. Over real HTTP; neither socket exists, so nothing reaches an Engine.
 */
describe('listen-mode agent: watcher types', () => {
  const listen = useDockerlessListenAgent(SECRET, {
    DD_WATCHER_PM_TYPE: 'podman',
    DD_WATCHER_PM_SOCKET: '/nonexistent/podman.sock',
  });
  const call = (path: string, method = 'GET') =>
    fetch(`${listen.agent().url}${path}`, {
      method,
      headers: { 'X-Dd-Agent-Secret': SECRET, 'content-type': 'application/json' },
      ...(method === 'POST' && { body: JSON.stringify({ operationId: crypto.randomUUID() }) }),
    });

  it('lists each watcher with its type, in the shape the hub parses', async () => {
    const response = await call('/api/watchers');
    expect(response.status).toBe(200);
    const watchers = v.parse(v.array(AgentWatcherSchema), await response.json());
    expect(watchers.map((w) => [w.id, w.type]).sort()).toEqual([
      ['docker.local', 'docker'],
      ['podman.pm', 'podman'],
    ]);
    const ack = {
      version: '1',
      os: 'linux',
      arch: 'x64',
      cpus: 2,
      memoryGb: 1,
      uptimeSeconds: 1,
      logLevel: 'info',
    } as Parameters<typeof describeListenAgent>[0];
    const described = describeListenAgent(ack, watchers, { host: '127.0.0.1', port: 1 });
    expect(described.watchers.find((w) => w.name === 'pm')).toMatchObject({ type: 'podman' });
    // Docker's is not named: absent means docker, as in an edge agent's hello.
    expect(described.watchers.find((w) => w.name === 'local')).not.toHaveProperty('type');
  });

  it('finds a Podman watcher by its type or by docker (hubs name every agent watcher so), and no other', async () => {
    // The socket does not exist: found, then failed on the Engine (not a 404).
    for (const path of ['/api/watchers/podman/pm/inventory', '/api/watchers/docker/pm/inventory']) {
      expect((await call(path, 'POST')).status, path).not.toBe(404);
    }
    for (const path of ['/api/watchers/podman/local/inventory', '/api/watchers/swarm/pm/inventory']) {
      const response = await call(path, 'POST');
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: string }).error).toMatch(/Unknown watcher/);
    }
  });
});
