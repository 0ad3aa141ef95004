/**
 * Podman watchers (docs/sources.md "Podman") against Debian's real podman 4.3.1: a private
 * `podman system service` (test/support/podman/start-podman.ts), a plain registry with an app's
 * 1.0.0 and 2.0.0 pushed by podman itself, and the hub as `npm start` runs it with
 * DD_WATCHER_PM_TYPE=podman and a Docker action trigger. Containers and a pod are made with the
 * podman CLI as users make them; what Podman did is read back through the podman CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheckCommand } from '../../hub/src/adapter/node/check-command';
import type { NodeHub } from '../../hub/src/adapter/node/start-node-hub';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import type { ContainerGroup } from '../../shared/schemas/container-views';
import { publishPodmanApp } from '../support/podman/podman-app';
import { podmanHubClient, startPodmanHub } from '../support/podman/podman-hub';
import { startPodman, type TestPodman } from '../support/podman/start-podman';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const post = { method: 'POST' };
/** An update and its rollback each stop a container (2 s) and wait on its start; room for a loaded machine. */
const UPDATE_TEST_MS = 90_000;
/** Every container the test makes, sorted (a pod's infra container is Podman's own and never listed). */
const ALL_NAMES = ['built', 'nightly', 'shop-api', 'shop-cron', 'shop-worker', 'web'];

describe('podman watcher on a real podman service', () => {
  let podman: TestPodman;
  let registry: TestRegistry;
  let hub: NodeHub;
  let app = '';

  const { api, json, byName, podmanCli, inspect, settled, update, rollback } = podmanHubClient(
    () => hub,
    () => podman,
  );

  const publish = (tag: string, keepLocal = false) => publishPodmanApp(podman, registry, tag, keepLocal);

  beforeAll(async () => {
    registry = await startRegistry({ variant: 'plain' });
    podman = await startPodman({ insecureRegistries: [registry.host] });
    app = await publish('1.0.0');
    await publish('2.0.0');
    // Built on the host and pushed from it, kept under both names (RepoDigests names each).
    const edge = await publish('edge', true);

    // Stopped in 2 s, not 10 (sleep as PID 1 ignores SIGTERM); without a network (a CNI bridge would change the host's).
    const run = (...args: string[]) => podmanCli('run', '-d', '--stop-timeout', '2', ...args);
    // A short name, resolved by Podman through unqualified-search-registries (the test registry).
    await run('--name', 'web', '--network', 'none', 'podman/app:1.0.0');
    // Podman's own policy label: `registry` opts in to automatic updates.
    await run('--name', 'nightly', '--network', 'none', '--label', 'io.containers.autoupdate=registry', app);
    await run('--name', 'built', '--network', 'none', edge);
    // A pod's containers share its (absent) network.
    await podmanCli('pod', 'create', '--name', 'shop', '--network', 'none');
    await run('--pod', 'shop', '--name', 'shop-api', app);
    await run('--pod', 'shop', '--name', 'shop-worker', '--label', 'io.containers.autoupdate=local', app);
    await run('--pod', 'shop', '--name', 'shop-cron', app);

    hub = await startPodmanHub(podman, {
      DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '2',
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
    });
  }, 180_000);

  afterAll(async () => {
    await hub?.close();
    await podman?.stop();
    await registry?.stop();
  });

  it('is a watcher type of its own, configured on the socket', async () => {
    const types = await json<{ data: { type: string; update: boolean; containerActions: boolean }[] }>(
      '/api/v1/watchers/types',
    );
    expect(types.data).toContainEqual(
      expect.objectContaining({ type: 'podman', update: true, containerActions: true }),
    );
    const watcher = await json<{ id: string; configuration: { endpoint: string } }>('/api/v1/watchers/podman/pm');
    expect(watcher).toMatchObject({ id: 'podman.pm', configuration: { endpoint: `unix://${podman.socketPath}` } });
  });

  it("lists the containers with their qualified names, a pod's containers grouped, the pod's infra left out", async () => {
    const response = await api('/api/v1/watchers/podman/pm/inventory', post);
    expect(response.status).toBe(200);
    const { containers } = (await response.json()) as { containers: Container[] };
    expect(containers.map((c) => c.name).sort()).toEqual(ALL_NAMES);
    const web = containers.find((c) => c.name === 'web') as Container;
    expect(web).toMatchObject({ watcher: 'pm', image: { registry: { url: registry.host }, name: 'podman/app' } });
    expect(web.image.tag.value).toBe('1.0.0');
    expect(containers.find((c) => c.name === 'shop-api')).toMatchObject({
      group: 'shop',
      labels: { 'dockwatch.podman.pod': 'shop' },
    });
    const groups = await json<{ data: ContainerGroup[] }>('/api/v1/containers/groups');
    const shop = groups.data.find((group) => group.name === 'shop');
    expect(shop).toMatchObject({ kind: 'pod', watcher: 'pm', agent: null });
    expect(shop?.containers.map((c) => c.name)).toEqual(['shop-api', 'shop-cron', 'shop-worker']);
    expect(containers.every((c) => c.watcherType === 'podman')).toBe(true);
  });

  it('is checked by `dockwatch check` from the same configuration, with no server', async () => {
    let stdout = '';
    const code = await runCheckCommand(
      ['--json'],
      { DD_LOCAL_WATCHER: 'false', DD_WATCHER_PM_TYPE: 'podman', DD_WATCHER_PM_SOCKET: podman.socketPath },
      { stdout: (text) => (stdout += text), stderr: () => undefined, stderrIsTty: false },
    );
    const report = JSON.parse(stdout) as { sources: { type: string; name: string }[]; containers: Container[] };
    expect(code).toBe(1);
    expect(report.sources).toEqual([expect.objectContaining({ type: 'podman', name: 'pm', errors: [] })]);
    expect(report.containers.map((c) => c.name).sort()).toEqual(ALL_NAMES);
    expect(report.containers.find((c) => c.name === 'web')).toMatchObject({ updateAvailable: true });
  });

  it('checks the registry: 1.0.0 → 2.0.0, except for the autoupdate=local container', async () => {
    expect((await api('/api/v1/containers/watch', post)).status).toBe(200);
    expect(await byName('web')).toMatchObject({
      updateAvailable: true,
      updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0' },
    });
    expect(await byName('shop-worker')).toMatchObject({ watched: false, updateAvailable: false });
    expect(await byName('shop-api')).toMatchObject({ watched: true, updateAvailable: true });
    // Its digest is watched (a tag that is not a version): what the host pushed is what the registry has.
    expect(await byName('built')).toMatchObject({ image: { digest: { watch: true } }, updateAvailable: false });
    expect((await byName('built'))?.error).toBeUndefined();
  });

  it(
    'updates the autoupdate=registry container by itself, as its label asks',
    async () => {
      // The watch cycle above queued it (dd.action.auto=true from the label, the trigger covers every watcher).
      const deadline = Date.now() + 60_000;
      let applied: AuditEntry | undefined;
      while (!applied && Date.now() < deadline) {
        const entries = await json<{ data: AuditEntry[] }>('/api/v1/audit?actions=update-applied&limit=200');
        applied = entries.data.find((entry) => entry.containerName === 'nightly');
        if (!applied) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(applied).toMatchObject({ fromVersion: '1.0.0', toVersion: '2.0.0', triggerName: 'docker.update' });
      expect(await settled(String(applied?.details))).toMatchObject({ status: 'succeeded', toVersion: '2.0.0' });
      expect((await inspect('nightly')).Config.Image).toBe(`${registry.host}/podman/app:2.0.0`);
      // Checked again with its digest watched (the policy's dd.watch.digest): the digest Podman pulled is the registry's.
      expect((await api('/api/v1/containers/watch', post)).status).toBe(200);
      expect(await byName('nightly')).toMatchObject({
        image: { tag: { value: '2.0.0' }, digest: { watch: true, repo: expect.stringMatching(/^sha256:/) } },
        updateAvailable: false,
      });
    },
    UPDATE_TEST_MS,
  );

  it(
    'updates a container by re-creation through the API, then rolls it back',
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
      // Podman's own environment is not carried over: the new container has its own host name.
      expect(updated.Config.Env).toContain(`HOSTNAME=${updated.Id.slice(0, 12)}`);
      expect(await byName('web')).toMatchObject({ id: updated.Id, updateAvailable: false });

      const back = await rollback(updated.Id);
      expect(back).toMatchObject({ kind: 'rollback', status: 'succeeded', fromVersion: '2.0.0', toVersion: '1.0.0' });
      const restored = await inspect('web');
      expect(restored.Config.Image).toBe(`${registry.host}/podman/app:1.0.0`);
      expect(restored.State.Running).toBe(true);
    },
    UPDATE_TEST_MS,
  );

  it(
    "updates a pod's container in its pod, through libpod, and rolls it back there",
    async () => {
      const before = await inspect('shop-api');
      expect(await update(before.Id)).toMatchObject({ status: 'succeeded', toVersion: '2.0.0' });
      const updated = await inspect('shop-api');
      expect(updated).toMatchObject({
        Config: { Image: `${registry.host}/podman/app:2.0.0` },
        State: { Running: true },
      });
      expect(updated.Pod).toBe(before.Pod);
      expect(await byName('shop-api')).toMatchObject({ id: updated.Id, group: 'shop', updateAvailable: false });

      const back = await rollback(updated.Id);
      expect(back).toMatchObject({ kind: 'rollback', status: 'succeeded', toVersion: '1.0.0' });
      const restored = await inspect('shop-api');
      expect(restored).toMatchObject({ Pod: before.Pod, Config: { Image: app }, State: { Running: true } });
      // The pod still has its two containers (and its infra one), nothing left under a temporary name.
      expect(
        (await podmanCli('ps', '-a', '--filter', 'pod=shop', '--format', '{{.Names}}')).split('\n').sort(),
      ).toEqual([expect.stringMatching(/-infra$/), 'shop-api', 'shop-cron', 'shop-worker']);
    },
    UPDATE_TEST_MS,
  );

  it(
    'updates the whole pod as one unit from any of its containers',
    async () => {
      const before = { api: await inspect('shop-api'), cron: await inspect('shop-cron') };
      const groups = await json<{ data: ContainerGroup[] }>('/api/v1/containers/groups');
      expect(groups.data.find((group) => group.name === 'shop')).toMatchObject({ kind: 'pod', updatesAvailable: 2 });
      const response = await api(`/api/v1/dependency-groups/${before.cron.Id}/update`, {
        method: 'POST',
        headers: { 'X-DD-Confirm-Action': 'dependency-group-update' },
      });
      expect(response.status).toBe(202);
      const answer = (await response.json()) as {
        waves: number;
        members: { containerName: string; wave: number; result: string; operationId?: string }[];
      };
      // One wave: the pod's containers with an update are re-created together; the unwatched one stays.
      expect(answer.waves).toBe(1);
      expect(answer.members.map((m) => [m.containerName, m.wave, m.result])).toEqual([
        ['shop-api', 0, 'queued'],
        ['shop-cron', 0, 'queued'],
        ['shop-worker', 0, 'unchanged'],
      ]);
      const operations = await Promise.all(
        answer.members.flatMap((m) => (m.operationId ? [settled(m.operationId, 80_000)] : [])),
      );
      expect(operations.map((op) => [op.containerName, op.status, op.toVersion])).toEqual([
        ['shop-api', 'succeeded', '2.0.0'],
        ['shop-cron', 'succeeded', '2.0.0'],
      ]);
      for (const name of ['shop-api', 'shop-cron'] as const) {
        const now = await inspect(name);
        expect(now).toMatchObject({ Pod: before.api.Pod, Config: { Image: `${registry.host}/podman/app:2.0.0` } });
        expect(now.State.Running).toBe(true);
      }
      await expect
        .poll(
          async () =>
            (await json<{ data: AuditEntry[] }>('/api/v1/audit?actions=dependency-group-update')).data[0]?.status,
          { timeout: 10_000 },
        )
        .toBe('succeeded');
      expect(
        (await podmanCli('ps', '-a', '--filter', 'pod=shop', '--format', '{{.Names}}')).split('\n').sort(),
      ).toEqual([expect.stringMatching(/-infra$/), 'shop-api', 'shop-cron', 'shop-worker']);
    },
    UPDATE_TEST_MS,
  );
});
