/**
 * The hub never updates the container it runs in, nor the proxy it reaches Docker through (domain
 * notes: users saw a tool update its own socket proxy and lose Docker halfway). A real Docker Engine
 * reached over TCP through a forwarder on a loopback port, a real registry, the hub as `npm start` runs it.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { expectJsonError } from '../support/hub-harness';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

/** Docker's API on 127.0.0.1:<port>, forwarded to the daemon's unix socket (what a socket proxy does). */
async function startTcpForwarder(socketPath: string): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((client) => {
    const upstream = createConnection(socketPath);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.emit('close');
      }),
  };
}

describe('containers the hub depends on are not updated by it', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let docker: Docker;
  let forwarder: Awaited<ReturnType<typeof startTcpForwarder>>;
  let hub: HubOnDockerd;
  const ids: Record<string, string> = {};
  let from = '';
  let to = '';
  let composeDir = '';
  let composeFile = '';

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    docker = dockerd.docker;
    forwarder = await startTcpForwarder(dockerd.socketPath);
    from = await publishApp(dockerd, registry, { repository: 'lifeline/app', tag: '1.0.0', kind: 'sleep' });
    to = await publishApp(dockerd, registry, { repository: 'lifeline/app', tag: '2.0.0', kind: 'sleep' });
    await pullApp(dockerd, from);
    // The proxy publishes the port the hub's watcher talks to. Here the test's forwarder holds that
    // port, so this container is only created (a stopped container is updated too, so it counts).
    const proxy = await docker.createContainer({
      name: 'socket-proxy',
      Image: from,
      Labels: { 'dd.watch': 'true' },
      ExposedPorts: { '2375/tcp': {} },
      HostConfig: { PortBindings: { '2375/tcp': [{ HostIp: '127.0.0.1', HostPort: String(forwarder.port) }] } },
    });
    ids['proxy'] = proxy.id;
    ids['self'] = await startWatchedApp(dockerd, 'dockwatch', from);
    // plain says it comes from a compose file. Over TCP that file is another machine's: a file at
    // the same path here belongs to another stack and must stay as it is.
    composeDir = await mkdtemp(join(tmpdir(), 'dockwatch-lifeline-compose-'));
    composeFile = join(composeDir, 'compose.yml');
    await writeFile(composeFile, `services:\n  plain:\n    image: ${from} # pinned\n`);
    ids['plain'] = await startWatchedApp(dockerd, 'plain', from, {
      'com.docker.compose.project': 'lifeline',
      'com.docker.compose.service': 'plain',
      'com.docker.compose.project.config_files': composeFile,
    });
    hub = await startHubOnDockerd(
      dockerd,
      {
        DD_WATCHER_LOCAL_SOCKET: undefined,
        DD_WATCHER_LOCAL_HOST: '127.0.0.1',
        DD_WATCHER_LOCAL_PORT: String(forwarder.port),
        DD_WATCHER_LOCAL_WATCHALL: 'true',
        DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1',
      },
      { selfContainerId: ids['self'], updates: { timing: { pollMs: 100, startSettleMs: 300 } } },
    );
    expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await hub?.close();
    await forwarder?.close();
    await dockerd?.stop();
    await registry?.stop();
    if (composeDir) await rm(composeDir, { recursive: true, force: true });
  });

  it('refuses the socket proxy and its own container with 409 hub-lifeline, touching nothing', async () => {
    const before = (await docker.listContainers({ all: true }))
      .map((c) => `${c.Id} ${c.Names[0]} ${c.State} ${c.Image}`)
      .sort();
    for (const name of ['proxy', 'self']) {
      const body = await expectJsonError(
        await hub.api(`/api/v1/containers/${ids[name]}/update`, { method: 'POST' }),
        409,
      );
      expect(body.details).toEqual({ reason: 'hub-lifeline' });
    }
    expect(
      (await expectJsonError(await hub.api(`/api/v1/containers/${ids['proxy']}/update`, { method: 'POST' }), 409))
        .error,
    ).toContain(`127.0.0.1:${forwarder.port}`);
    const preview = await hub.json<{ canUpdate: boolean; blockers: { reason: string }[] }>(
      `/api/v1/containers/${ids['self']}/preview`,
      {
        method: 'POST',
      },
    );
    expect(preview).toMatchObject({ canUpdate: false, blockers: [{ reason: 'hub-lifeline' }] });
    expect(hub.parts.updates.unsettled()).toEqual([]);
    expect(
      (await docker.listContainers({ all: true })).map((c) => `${c.Id} ${c.Names[0]} ${c.State} ${c.Image}`).sort(),
    ).toEqual(before);
  });

  it('updates any other container through the same TCP endpoint, leaving a same-path compose file here alone', async () => {
    const response = await hub.api(`/api/v1/containers/${ids['plain']}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const { operationId } = (await response.json()) as { operationId: string };
    await expect
      .poll(async () => (await hub.json<{ status: string }>(`/api/v1/update-operations/${operationId}`)).status, {
        timeout: 60_000,
        interval: 250,
      })
      .toBe('succeeded');
    const [plain] = await docker.listContainers({ all: true, filters: { name: ['^/plain$'] } });
    expect(plain?.Image).toBe(to);
    const settled = await hub.json<{ composeFile?: { status: string; reason?: string } }>(
      `/api/v1/update-operations/${operationId}`,
    );
    expect(settled.composeFile).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('DD_WATCHER_LOCAL_COMPOSEFILES=true'),
    });
    expect(await readFile(composeFile, 'utf8')).toBe(`services:\n  plain:\n    image: ${from} # pinned\n`);
    expect(await readdir(composeDir)).toEqual(['compose.yml']);
  }, 90_000);
});
