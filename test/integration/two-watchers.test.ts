import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeHub, startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { silentSink } from '../../shared/logging/logger';
import type { Container } from '../../shared/schemas/container';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type LatencyProxy, startLatencyProxy } from '../support/latency-proxy';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

/** Two Docker hosts watched by one hub: their containers side by side, their registry lookups shared. */
describe('two watchers on two real Docker Engines', () => {
  let hosts: TestDockerd[];
  let registry: TestRegistry;
  let proxy: LatencyProxy;
  let hub: NodeHub;

  beforeAll(async () => {
    [hosts, registry] = await Promise.all([
      Promise.all([startDockerd(), startDockerd()]),
      startRegistry({ variant: 'plain' }),
    ]);
    proxy = await startLatencyProxy(registry.url, 0);
    const image = `${proxy.host}/shared/app`;
    for (const [index, host] of hosts.entries()) {
      await importBusyboxImage(host.docker, { repository: 'shared/app', tag: 'build', cmd: ['sleep', '3600'] });
      for (const tag of ['1.0.0', '1.1.0']) {
        await host.cli(['tag', 'shared/app:build', `${image}:${tag}`]);
        const pushed = await host.cli(['push', `${image}:${tag}`]);
        if (pushed.code !== 0) throw new Error(pushed.stderr);
      }
      await runContainer(host.docker, { name: `app-${index}`, image: `${image}:1.0.0` });
    }
    hub = await startNodeHub({
      env: {
        DD_STORE_DRIVER: 'memory',
        DD_SERVER_PORT: '0',
        DD_SERVER_HOST: '127.0.0.1',
        DD_LOCAL_WATCHER: 'false',
        DD_WATCHER_EAST_SOCKET: hosts[0]?.socketPath ?? '',
        DD_WATCHER_WEST_SOCKET: hosts[1]?.socketPath ?? '',
      },
      sink: silentSink,
    });
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await proxy?.close();
    await Promise.all((hosts ?? []).map((host) => host.stop()));
    await registry?.stop();
  });

  it('lists each host under its watcher, and asks the registry once for the image they share', async () => {
    proxy.reset();
    const watched = await (await fetch(`${hub.url}/api/v1/containers/watch`, { method: 'POST' })).json();
    const byName = new Map(watched.data.map((c: Container) => [c.name, c]));
    expect(byName.get('app-0')).toMatchObject({ watcher: 'east', updateKind: { kind: 'tag', remoteValue: '1.1.0' } });
    expect(byName.get('app-1')).toMatchObject({ watcher: 'west', updateKind: { kind: 'tag', remoteValue: '1.1.0' } });
    expect(proxy.counts.get('GET tags')).toBe(1);
    const west = await (await fetch(`${hub.url}/api/v1/containers?watcher=west`)).json();
    expect(west.data.map((c: Container) => c.name)).toEqual(['app-1']);
    const watchers = await (await fetch(`${hub.url}/api/v1/watchers`)).json();
    expect(watchers.data.map((w: { id: string }) => w.id).sort()).toEqual(['docker.east', 'docker.west']);
  });
});
