/**
 * The container images (Dockerfile, docs/deploy.md) built and run on a real dockerd, as a user runs
 * them: the hub with the Docker socket mounted, updating a container from a real registry; the edge
 * agent, its key in a volume, connected to a hub container over a user-defined network; both as
 * uid 1000 with the socket's group added, stopping with exit 0 inside docker stop's 10 s and
 * starting again on the same state. One image build for the file (about 40 s here, most of it the
 * bundle and the base image); every case reuses it.
 *
 * The update hub runs on the host network: the test registry listens on the host's 127.0.0.1 only,
 * where dockerd pulls from; the hub must resolve the same image reference to the same registry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import {
  buildDockwatchImages,
  type DockwatchImages,
  IMAGE_REVISION,
  IMAGE_VERSION,
} from '../support/docker/dockwatch-images';
import {
  docker,
  freePort,
  hubRunArgs,
  inspect,
  socketGroup,
  stopTimed,
  waitForHealth,
  waitForHttp,
} from '../support/docker/image-containers';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const STOP_BUDGET_MS = 10_000;
const post = { method: 'POST' };

describe('container images', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let images: DockwatchImages;
  let appReference: { from: string; to: string };

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    images = await buildDockwatchImages(dockerd);
    const [from, to] = await Promise.all([
      publishApp(dockerd, registry, { repository: 'team/app', tag: '1.0.0', kind: 'sleep' }),
      publishApp(dockerd, registry, { repository: 'team/app', tag: '1.1.0', kind: 'sleep' }),
    ]);
    appReference = { from, to };
    await pullApp(dockerd, from);
    await startWatchedApp(dockerd, 'app', from);
  }, 240_000);

  afterAll(async () => {
    images?.cleanup();
    await Promise.all([dockerd?.stop(), registry?.stop()]);
  });

  it('labels the images (OCI source, version, revision, MIT) and runs them as uid 1000, stopped by SIGTERM', async () => {
    for (const [reference, entry] of [
      [images.hub, '/app/hub.mjs'],
      [images.agent, '/app/agent.mjs'],
    ] as const) {
      const image = await dockerd.docker.getImage(reference).inspect();
      expect(image.Config.Labels).toMatchObject({
        'org.opencontainers.image.version': IMAGE_VERSION,
        'org.opencontainers.image.revision': IMAGE_REVISION,
        'org.opencontainers.image.licenses': 'MIT',
      });
      expect(image.Config.Labels['org.opencontainers.image.source']).toMatch(/^https:\/\//);
      expect(image.Config.User).toBe('1000:1000');
      expect((image.Config as { StopSignal?: string }).StopSignal).toBe('SIGTERM');
      expect(image.Config.Healthcheck?.Test).toEqual(expect.arrayContaining(['CMD', 'node', entry, '--healthcheck']));
      expect(await docker(dockerd, ['run', '--rm', reference, '--version'])).toBe(IMAGE_VERSION);
    }
  });

  describe('the hub image with the Docker socket', () => {
    let port: number;
    let url: string;
    const api = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
    const byName = async (name: string) =>
      ((await (await api('/api/v1/containers')).json()) as { data: Container[] }).data.find((c) => c.name === name);
    let operationId: string;

    beforeAll(async () => {
      port = await freePort();
      url = `http://127.0.0.1:${port}`;
      await docker(
        dockerd,
        hubRunArgs(dockerd, {
          name: 'dockwatch',
          port,
          image: images.hub,
          env: { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' },
        }),
      );
      await waitForHttp(dockerd, 'dockwatch', `${url}/health`);
    }, 60_000);

    it('answers /health, turns healthy through its own --healthcheck, and runs as uid 1000 in the socket group', async () => {
      expect(await (await api('/health')).json()).toMatchObject({ status: 'ok' });
      await waitForHealth(dockerd, 'dockwatch', 'healthy');
      expect(await docker(dockerd, ['exec', 'dockwatch', 'id', '-u'])).toBe('1000');
      expect((await docker(dockerd, ['exec', 'dockwatch', 'id', '-G'])).split(' ')).toContain(socketGroup(dockerd));
      // The UI comes from dist/ui beside the bundle: a page, not the "build the UI" message.
      const page = await api('/', { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="app">');
    });

    it('lists the container beside it, finds its update in the registry and updates it', async () => {
      expect((await api('/api/v1/containers/watch', post)).status).toBe(200);
      const app = await byName('app');
      expect(app).toMatchObject({ image: expect.objectContaining({}), updateAvailable: true });
      const response = await api(`/api/v1/containers/${app?.id}/update`, post);
      expect(response.status).toBe(202);
      operationId = ((await response.json()) as { operationId: string }).operationId;
      const deadline = Date.now() + 60_000;
      let operation: UpdateOperation;
      do {
        await new Promise((resolve) => setTimeout(resolve, 250));
        operation = (await (await api(`/api/v1/update-operations/${operationId}`)).json()) as UpdateOperation;
      } while (!['succeeded', 'failed', 'rolled-back'].includes(operation.status) && Date.now() < deadline);
      expect(operation.status).toBe('succeeded');
      expect((await inspect(dockerd, 'app')).Config.Image).toBe(appReference.to);
    }, 90_000);

    it('stops with exit 0 within 10 s and starts again on the same state', async () => {
      const stopped = await stopTimed(dockerd, 'dockwatch');
      expect(stopped).toMatchObject({ exitCode: 0, oomKilled: false });
      expect(stopped.ms).toBeLessThan(STOP_BUDGET_MS);
      await docker(dockerd, ['start', 'dockwatch']);
      await waitForHttp(dockerd, 'dockwatch', `${url}/health`);
      const operation = (await (await api(`/api/v1/update-operations/${operationId}`)).json()) as UpdateOperation;
      expect(operation).toMatchObject({ id: operationId, status: 'succeeded' });
      await docker(dockerd, ['rm', '-f', 'dockwatch']);
    }, 60_000);
  });

  describe('the agent image beside a hub container on a user-defined network', () => {
    let hubUrl: string;
    const agents = async () =>
      ((await (await fetch(`${hubUrl}/api/v1/agents`)).json()) as { data: { name: string; connected: boolean }[] })
        .data;

    beforeAll(async () => {
      await docker(dockerd, ['network', 'create', 'dockwatch-edge']);
      await docker(dockerd, [
        'run',
        '-d',
        '--name',
        'dockwatch-hub',
        '--network',
        'dockwatch-edge',
        '-e',
        'DD_LOCAL_WATCHER=false',
        '-v',
        'dockwatch-hub-data:/app/data',
        images.hub,
      ]);
      const ip = (await inspect(dockerd, 'dockwatch-hub')).NetworkSettings.Networks['dockwatch-edge']?.IPAddress;
      hubUrl = `http://${ip}:3000`;
      await waitForHttp(dockerd, 'dockwatch-hub', `${hubUrl}/health`);
    }, 60_000);

    it('makes its key into a volume, connects to the hub by name, and its host’s containers appear', async () => {
      const keygen = await docker(dockerd, [
        'run',
        '--rm',
        '-v',
        'dockwatch-agent-key:/app/key',
        images.agent,
        'keygen',
        '--key',
        '/app/key/agent.key',
        '--name',
        'edge-one',
        '--json',
      ]);
      const registration = JSON.parse(keygen) as { body: { publicKey: string; label: string }; keyId: string };
      const registered = await fetch(`${hubUrl}/api/v1/edge/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(registration.body),
      });
      expect(registered.status).toBe(201);
      await docker(dockerd, [
        'run',
        '-d',
        '--name',
        'dockwatch-agent',
        '--network',
        'dockwatch-edge',
        '--group-add',
        socketGroup(dockerd),
        '-v',
        `${dockerd.socketPath}:/var/run/docker.sock`,
        '-v',
        'dockwatch-agent-key:/app/key',
        '--health-interval',
        '1s',
        '--health-start-period',
        '1s',
        images.agent,
        '--hub',
        'ws://dockwatch-hub:3000',
        '--key',
        '/app/key/agent.key',
        '--name',
        'edge-one',
      ]);
      await waitForHttp(dockerd, 'dockwatch-agent', `${hubUrl}/api/v1/containers?agent=edge-one`, async (response) => {
        const { data } = (await response.json()) as { data: Container[] };
        return data.some((c) => c.name === 'app' && c.agent === 'edge-one');
      });
      expect(await agents()).toContainEqual(expect.objectContaining({ name: 'edge-one', connected: true }));
      await waitForHealth(dockerd, 'dockwatch-agent', 'healthy');
      expect(await docker(dockerd, ['exec', 'dockwatch-agent', 'id', '-u'])).toBe('1000');
    }, 60_000);

    it('stops the agent and the hub with exit 0 within 10 s; both start again on the same key and state', async () => {
      const agentStop = await stopTimed(dockerd, 'dockwatch-agent');
      expect(agentStop).toMatchObject({ exitCode: 0, oomKilled: false });
      expect(agentStop.ms).toBeLessThan(STOP_BUDGET_MS);
      const hubStop = await stopTimed(dockerd, 'dockwatch-hub');
      expect(hubStop).toMatchObject({ exitCode: 0, oomKilled: false });
      expect(hubStop.ms).toBeLessThan(STOP_BUDGET_MS);
      await docker(dockerd, ['start', 'dockwatch-hub']);
      const ip = (await inspect(dockerd, 'dockwatch-hub')).NetworkSettings.Networks['dockwatch-edge']?.IPAddress;
      hubUrl = `http://${ip}:3000`;
      await waitForHttp(dockerd, 'dockwatch-hub', `${hubUrl}/health`);
      await docker(dockerd, ['start', 'dockwatch-agent']);
      // The key registered before the stop is still on the hub (its volume), the key file in the agent's.
      await waitForHttp(dockerd, 'dockwatch-agent', `${hubUrl}/api/v1/agents`, async (response) => {
        const { data } = (await response.json()) as { data: { name: string; connected: boolean }[] };
        return data.some((agent) => agent.name === 'edge-one' && agent.connected);
      });
    }, 60_000);
  });
});
