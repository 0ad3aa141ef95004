/**
 * Health checks on Podman without systemd (docs/sources.md "Podman"): the test's `podman system
 * service` has no systemd to run a HEALTHCHECK's timer (its log says so), so only the Podman
 * host's own runs (edge-agent/src/docker/podman-healthcheck.ts) move a container out of
 * `starting`. An update to an image whose check passes goes through the health gate; one whose
 * check fails is rolled back as unhealthy, not after the gate's timeout.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHub } from '../../hub/src/adapter/node/start-node-hub';
import type { Container } from '../../shared/schemas/container';
import { publishCheckedPodmanApp } from '../support/podman/podman-app';
import { podmanHubClient, startPodmanHub } from '../support/podman/podman-hub';
import { startPodman, type TestPodman } from '../support/podman/start-podman';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const post = { method: 'POST' };
/** Longer than an update takes here (a few seconds), shorter than the test: a rollback by timeout would show. */
const HEALTH_TIMEOUT_S = 20;
const UPDATE_TEST_MS = 60_000;

describe('health checks on a podman service without systemd', () => {
  let podman: TestPodman;
  let registry: TestRegistry;
  let hub: NodeHub;

  const { api, podmanCli, inspect, update } = podmanHubClient(
    () => hub,
    () => podman,
  );

  // Within the test: a rollback by the gate's timeout (20 s) would still settle in time to be told apart.
  const updateNamed = async (name: string) => update((await inspect(name)).Id, 45_000);

  beforeAll(async () => {
    registry = await startRegistry({ variant: 'plain' });
    podman = await startPodman({ insecureRegistries: [registry.host] });
    const publish = (repository: string, tag: string, check: string) =>
      publishCheckedPodmanApp(podman, registry, repository, tag, [check]);
    const fine = await publish('fine', '1.0.0', 'true');
    await publish('fine', '2.0.0', 'true');
    const broken = await publish('broken', '1.0.0', 'true');
    await publish('broken', '2.0.0', 'false');
    const run = (name: string, image: string) =>
      podmanCli('run', '-d', '--stop-timeout', '2', '--name', name, '--network', 'none', image);
    await run('fine', fine);
    await run('broken', broken);

    hub = await startPodmanHub(podman, { DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: String(HEALTH_TIMEOUT_S) });
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await podman?.stop();
    await registry?.stop();
  });

  it('has no systemd to run the checks: a container stays starting until the watcher looks at it', async () => {
    expect(await readFile(podman.logFile, 'utf8')).toContain('unable to get systemd connection to add healthchecks');
    expect((await inspect('fine')).State.Health?.Status).toBe('starting');
    const response = await api('/api/v1/watchers/podman/pm/inventory', post);
    const { containers } = (await response.json()) as { containers: Container[] };
    expect(containers.find((c) => c.name === 'fine')).toMatchObject({ health: 'healthy' });
    expect((await inspect('fine')).State.Health?.Status).toBe('healthy');
  });

  it(
    'updates a container whose new image passes its check through the health gate',
    async () => {
      const watched = await api('/api/v1/containers/watch', post);
      expect(watched.status).toBe(200);
      // Both updates are there to take; if not, the failure shows the record the cycle left (its error).
      const { data } = (await watched.json()) as { data: Container[] };
      for (const name of ['fine', 'broken']) {
        const shown = data.find((c) => c.name === name);
        expect(shown?.updateAvailable, `${name}: ${JSON.stringify(shown)}`.slice(0, 3000)).toBe(true);
      }
      const started = Date.now();
      expect(await updateNamed('fine')).toMatchObject({
        status: 'succeeded',
        fromVersion: '1.0.0',
        toVersion: '2.0.0',
      });
      expect(Date.now() - started).toBeLessThan(HEALTH_TIMEOUT_S * 1000);
      const updated = await inspect('fine');
      expect(updated).toMatchObject({
        Config: { Image: `${registry.host}/podman/fine:2.0.0` },
        State: { Running: true, Health: { Status: 'healthy' } },
      });
    },
    UPDATE_TEST_MS,
  );

  it(
    'rolls back an update whose new image fails its check, as unhealthy rather than timed out',
    async () => {
      const started = Date.now();
      const operation = await updateNamed('broken');
      expect(operation).toMatchObject({ status: 'rolled-back', toVersion: '2.0.0' });
      expect(operation.rollbackReason ?? operation.lastError).toMatch(/reported unhealthy/);
      expect(Date.now() - started).toBeLessThan(HEALTH_TIMEOUT_S * 1000);
      expect(await inspect('broken')).toMatchObject({
        Config: { Image: `${registry.host}/podman/broken:1.0.0` },
        State: { Running: true },
      });
    },
    UPDATE_TEST_MS,
  );
});
