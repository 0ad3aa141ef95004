import { describe, expect, it } from 'vitest';
import type { DockerImageDetails } from '../../../shared/docker/docker-host';
import { EdgeDockerHost } from './edge-docker-host';
import { SharedImages } from './shared-images';

/** A fresh object each call, as each agent's frame is parsed into objects of its own. */
const nginx = (tags = ['nginx:1.27']): DockerImageDetails => ({
  id: 'sha256:aa',
  repoTags: tags,
  repoDigests: ['nginx@sha256:bb'],
  os: 'linux',
  architecture: 'amd64',
});

const hostWith = (shared: SharedImages, agentName: string) => {
  const host = new EdgeDockerHost({
    agentName,
    watcherName: 'local',
    endpoint: 'unix:///x',
    requestTimeoutMs: 1_000,
    now: Date.now,
    sharedImages: shared,
  });
  host.setLink({ request: async () => undefined });
  return host;
};

describe('SharedImages', () => {
  it('gives equal descriptions of an image one object (issue 30 item 3: one copy per agent)', () => {
    const shared = new SharedImages();
    const first = shared.share(nginx());
    expect(shared.share(nginx())).toBe(first);
    expect(shared.size).toBe(1);
  });

  it('takes a description reported otherwise as the shared one from then on', () => {
    const shared = new SharedImages();
    shared.share(nginx());
    const retagged = nginx(['nginx:1.27', 'nginx:latest']);
    expect(shared.share(retagged)).toBe(retagged);
    expect(shared.share(nginx(['nginx:1.27', 'nginx:latest']))).toBe(retagged);
  });

  it('forgets the image reported longest ago beyond its bound', () => {
    const shared = new SharedImages(2);
    const a = shared.share({ ...nginx(), id: 'sha256:a' });
    shared.share({ ...nginx(), id: 'sha256:b' });
    shared.share({ ...nginx(), id: 'sha256:a' });
    shared.share({ ...nginx(), id: 'sha256:c' });
    expect(shared.size).toBe(2);
    // b went, a stayed: it was reported again after b.
    expect(shared.share({ ...nginx(), id: 'sha256:a' })).toBe(a);
  });

  it('keeps one of each text containers repeat, within its bound, and changes no value', async () => {
    const shared = new SharedImages(10, 3);
    const host = hostWith(shared, 'one');
    const web = (id: string, env: string[]) => ({
      id,
      name: id,
      image: 'nginx:1.27',
      imageId: 'sha256:aa',
      state: 'running' as const,
      labels: {},
      createdAt: 0,
      env,
      restartCount: 0,
    });
    host.applySnapshot([web('c1', ['PATH=/usr/bin']), web('c2', ['PATH=/usr/bin'])], [nginx()]);
    // The image id is the shared image's own; the reference and the one environment entry are pooled.
    expect(shared.textCount).toBe(2);
    expect(await host.inspectContainer('c2')).toEqual(web('c2', ['PATH=/usr/bin']));
    host.applyChanged(web('c3', ['A=1', 'B=2', 'C=3']), undefined);
    expect(shared.textCount).toBe(3);
    expect(await host.inspectContainer('c3')).toEqual(web('c3', ['A=1', 'B=2', 'C=3']));
    // A secret is left out of the pool: it would outlive its container there.
    const pooled = new SharedImages();
    hostWith(pooled, 'two').applySnapshot([web('c4', ['DB_PASSWORD=hunter2'])], [nginx()]);
    expect(pooled.textCount).toBe(1);
  });

  it("is what agents' hosts keep, from snapshots and deltas alike", async () => {
    const shared = new SharedImages();
    const one = hostWith(shared, 'one');
    const two = hostWith(shared, 'two');
    one.applySnapshot([], [nginx()]);
    two.applySnapshot([], []);
    two.applyChanged(
      {
        id: 'c1',
        name: 'web',
        image: 'nginx:1.27',
        imageId: 'sha256:aa',
        state: 'running',
        labels: {},
        createdAt: 0,
        env: [],
        restartCount: 0,
      },
      nginx(),
    );
    const fromOne = await one.inspectImage('sha256:aa');
    expect(fromOne).toEqual(nginx());
    expect(await two.inspectImage('sha256:aa')).toBe(fromOne);
  });
});
