/**
 * The container images (Dockerfile, docs/deploy.md) built and run on a real dockerd: the hub with
 * the Docker socket mounted, updating a container from a real registry; the edge agent, its key
 * in a volume, connected to a hub container over a user-defined network; both stopping cleanly and
 * starting again on the same state, as uid 1000 with the socket's group added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDockwatchImages, type DockwatchImages, IMAGE_REVISION, IMAGE_VERSION } from '../support/docker/dockwatch-images';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';

describe('container images', () => {
  let dockerd: TestDockerd;
  let images: DockwatchImages;

  beforeAll(async () => {
    dockerd = await startDockerd();
    images = await buildDockwatchImages(dockerd);
    console.log('image build timings (ms):', images.timings);
  }, 180_000);

  afterAll(async () => {
    images?.cleanup();
    await dockerd?.stop();
  });

  it('labels the images (OCI source, version, revision, MIT), runs them as uid 1000, stops them with SIGTERM', async () => {
    for (const reference of [images.hub, images.agent]) {
      const image = await dockerd.docker.getImage(reference).inspect();
      expect(image.Config.Labels).toMatchObject({
        'org.opencontainers.image.version': IMAGE_VERSION,
        'org.opencontainers.image.revision': IMAGE_REVISION,
        'org.opencontainers.image.licenses': 'MIT',
      });
      expect(image.Config.Labels['org.opencontainers.image.source']).toMatch(/^https:\/\//);
      expect(image.Config.User).toBe('1000:1000');
      expect(image.Config.StopSignal).toBe('SIGTERM');
      expect(image.Config.Healthcheck?.Test?.slice(0, 3)).toEqual(['CMD', 'node', reference === images.hub ? '/app/hub.mjs' : '/app/agent.mjs']);
    }
  });
});
