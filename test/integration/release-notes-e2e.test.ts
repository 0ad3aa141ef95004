import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeHub, startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { silentSink } from '../../shared/logging/logger';
import type { Container } from '../../shared/schemas/container';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { type ReleaseApiServer, startReleaseApiServer } from '../support/release-api-server';

/**
 * Release notes on real components: images whose config carries `org.opencontainers.image.source`
 * (no label on the container itself: Docker copies the image's), pushed to a real registry, a
 * container on a real dockerd, the hub as `npm start` runs it, and GitHub's release API served by the
 * fixture the hub is pointed at (DD_RELEASE_NOTES_GITHUB_API_URL).
 */
describe('release notes of a container whose image names its source', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let forge: ReleaseApiServer;
  let dataDir: string;
  let hub: NodeHub;
  const ref = (tag: string) => `${registry.host}/acme/app:${tag}`;

  async function publish(tag: string): Promise<void> {
    await importBusyboxImage(dockerd.docker, {
      repository: 'acme/app',
      tag,
      cmd: ['sleep', '3600'],
      extraFile: { path: '/version', content: tag },
      labels: { 'org.opencontainers.image.source': 'https://github.com/acme/app' },
    });
    for (const args of [
      ['tag', `acme/app:${tag}`, ref(tag)],
      ['push', ref(tag)],
    ]) {
      const result = await dockerd.cli(args);
      if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
    }
  }

  const json = async (path: string, init?: RequestInit) => (await fetch(`${hub.url}${path}`, init)).json();

  beforeAll(async () => {
    [dockerd, registry, forge] = await Promise.all([
      startDockerd(),
      startRegistry({ variant: 'plain' }),
      startReleaseApiServer(),
    ]);
    forge.github('acme/app', [
      { tag: 'v1.1.0', name: 'App 1.1.0', body: '### Features\n\n- dark mode', date: '2026-03-01T10:00:00Z' },
      { tag: 'v1.0.1', name: 'App 1.0.1', body: '### Fixes\n\n- a crash on start', date: '2026-02-01T10:00:00Z' },
      { tag: 'v1.0.0', name: 'App 1.0.0', body: 'First release', date: '2026-01-01T10:00:00Z' },
    ]);
    dataDir = await mkdtemp(join(tmpdir(), 'hub-release-notes-'));
    await publish('1.0.0-alpine');
    await publish('1.1.0-alpine');
    await runContainer(dockerd.docker, { name: 'app', image: ref('1.0.0-alpine') });
    hub = await startNodeHub({
      env: {
        DD_STORE_PATH: dataDir,
        DD_SERVER_PORT: '0',
        DD_SERVER_HOST: '127.0.0.1',
        DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
        DD_WATCHER_LOCAL_JITTER: '0',
        DD_RELEASE_NOTES_GITHUB_API_URL: forge.url,
      },
      sink: silentSink,
    });
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.stop();
    await registry?.stop();
    await forge?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the release of the pending tag and every release since the running one', async () => {
    const watched = (await json('/api/v1/containers/watch', { method: 'POST' })) as { data: Container[] };
    const app = watched.data.find((container) => container.name === 'app') as Container;
    expect(app.labels['org.opencontainers.image.source']).toBe('https://github.com/acme/app');
    expect(app.updateKind).toMatchObject({ kind: 'tag', localValue: '1.0.0-alpine', remoteValue: '1.1.0-alpine' });

    expect(await json(`/api/v1/containers/${app.id}/release-notes`)).toEqual({
      containerId: app.id,
      status: 'ok',
      message: 'Release v1.1.0',
      source: {
        forge: 'github',
        host: 'github.com',
        repository: 'acme/app',
        url: 'https://github.com/acme/app',
        label: 'org.opencontainers.image.source',
      },
      target: '1.1.0-alpine',
      release: {
        tag: 'v1.1.0',
        version: '1.1.0',
        title: 'App 1.1.0',
        date: '2026-03-01T10:00:00Z',
        body: '### Features\n\n- dark mode',
        url: 'https://github.com/acme/app/releases/tag/v1.1.0',
        prerelease: false,
      },
    });
    const between = (await json(`/api/v1/containers/${app.id}/intermediate-release-notes?from=1.0.0`)) as {
      releases: { tag: string; body: string }[];
    };
    expect(between.releases.map((release) => [release.tag, release.body])).toEqual([
      ['v1.0.1', '### Fixes\n\n- a crash on start'],
      ['v1.1.0', '### Features\n\n- dark mode'],
    ]);
    // One request for the repository: the second answer came from the cache.
    expect(forge.requests.map((request) => request.path)).toEqual(['/repos/acme/app/releases?per_page=100']);
  });
});
