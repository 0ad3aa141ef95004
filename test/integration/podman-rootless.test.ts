/**
 * A Podman watcher on rootless Podman (issue 29, docs/sources.md "Podman"): Debian's real podman
 * 4.3.1 run by an unprivileged user (test/support/podman/rootless-user.ts) on a socket in its own
 * temp dir, in the user namespace Podman makes from the user's subordinate ids. The hub, as root,
 * watches that socket as a user's hub would: the same watcher, only another socket. The registry
 * on loopback is reached by the rootless service (it shares the host's network; only containers
 * would get slirp4netns, and they run with `--network none` here).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHub } from '../../hub/src/adapter/node/start-node-hub';
import type { Container } from '../../shared/schemas/container';
import { publishPodmanApp } from '../support/podman/podman-app';
import { podmanHubClient, startPodmanHub } from '../support/podman/podman-hub';
import { startPodman, type TestPodman } from '../support/podman/start-podman';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const post = { method: 'POST' };
/** An update and its rollback each stop a container (2 s) and wait on its start; room for a loaded machine. */
const UPDATE_TEST_MS = 90_000;

interface IdMapping {
  container_id: number;
  host_id: number;
  size: number;
}

describe('podman watcher on a rootless podman service', () => {
  let podman: TestPodman;
  let registry: TestRegistry;
  let hub: NodeHub;

  const { api, byName, podmanCli, inspect, update, rollback } = podmanHubClient(
    () => hub,
    () => podman,
  );

  beforeAll(async () => {
    registry = await startRegistry({ variant: 'plain' });
    podman = await startPodman({ rootless: true, insecureRegistries: [registry.host] });
    await publishPodmanApp(podman, registry, '1.0.0');
    await publishPodmanApp(podman, registry, '2.0.0');
    // A short name, resolved through unqualified-search-registries (the test registry); stopped in
    // 2 s (sleep as PID 1 ignores SIGTERM).
    await podmanCli('run', '-d', '--stop-timeout', '2', '--name', 'web', '--network', 'none', 'podman/app:1.0.0');

    hub = await startPodmanHub(podman, {
      DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '2',
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
    });
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await podman?.stop();
    await registry?.stop();
  });

  it("is rootless: the service maps the user's ids, the container runs as the user on the host", async () => {
    const user = podman.user;
    expect(user).toBeDefined();
    const info = JSON.parse(await podmanCli('info', '--format', 'json')) as {
      host: { security: { rootless: boolean }; idMappings: { uidmap: IdMapping[] } };
    };
    expect(info.host.security.rootless).toBe(true);
    // Root in the container is the user; the rest of its ids are the user's subordinate range (newuidmap).
    expect(info.host.idMappings.uidmap[0]).toEqual({ container_id: 0, host_id: user?.uid, size: 1 });
    expect(info.host.idMappings.uidmap[1]).toMatchObject({ container_id: 1, size: 65536 });
    const { Pid } = (await inspect('web')).State;
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${Pid}/status`, 'utf8'))?.[1];
    expect(Number(uid)).toBe(user?.uid);
  });

  it('lists the container with its short name resolved, and checks it: 1.0.0 → 2.0.0', async () => {
    const response = await api('/api/v1/watchers/podman/pm/inventory', post);
    expect(response.status).toBe(200);
    const { containers } = (await response.json()) as { containers: Container[] };
    expect(containers.map((c) => c.name)).toEqual(['web']);
    expect(containers[0]).toMatchObject({
      watcher: 'pm',
      image: { registry: { url: registry.host }, name: 'podman/app' },
    });
    expect((await inspect('web')).Config.Image).toBe(`${registry.host}/podman/app:1.0.0`);

    expect((await api('/api/v1/containers/watch', post)).status).toBe(200);
    expect(await byName('web')).toMatchObject({
      updateAvailable: true,
      updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0' },
    });
  });

  it(
    'updates it by re-creation, then rolls it back',
    async () => {
      const before = await inspect('web');
      expect(await update(before.Id)).toMatchObject({
        status: 'succeeded',
        fromVersion: '1.0.0',
        toVersion: '2.0.0',
        targetImage: `${registry.host}/podman/app:2.0.0`,
      });
      const updated = await inspect('web');
      expect(updated.Id).not.toBe(before.Id);
      expect(updated.Config.Image).toBe(`${registry.host}/podman/app:2.0.0`);
      expect(updated.State.Running).toBe(true);
      expect(await byName('web')).toMatchObject({ id: updated.Id, updateAvailable: false });

      const back = await rollback(updated.Id);
      expect(back).toMatchObject({ kind: 'rollback', status: 'succeeded', fromVersion: '2.0.0', toVersion: '1.0.0' });
      const restored = await inspect('web');
      expect(restored.Config.Image).toBe(`${registry.host}/podman/app:1.0.0`);
      expect(restored.State.Running).toBe(true);
    },
    UPDATE_TEST_MS,
  );
});
