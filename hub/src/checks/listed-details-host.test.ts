import { describe, expect, it } from 'vitest';
import type { DockerContainerDetails, DockerContainerSummary } from '../../../shared/docker/docker-host';
import { fakeDockerHost } from '../../../test/support/fake-docker-host';
import { withListedDetails } from './listed-details-host';

const summary = (name: string, labels: Record<string, string> = {}): DockerContainerSummary => ({
  id: name.repeat(64).slice(0, 64),
  name,
  image: `example.com/${name}:1.0.0`,
  imageId: `sha256:${name}`,
  state: 'running',
  labels,
  createdAt: 1_700_000_000_000,
});

function countingHost(listings: DockerContainerSummary[][]) {
  const inspected: string[] = [];
  const imagesInspected: string[] = [];
  const host = fakeDockerHost({
    listContainers: async () => listings.shift() ?? [],
    inspectContainer: async (id): Promise<DockerContainerDetails | undefined> => {
      inspected.push(id);
      return id === 'late' ? { ...summary('late'), id, env: ['A=1'], restartCount: 2 } : undefined;
    },
    inspectImage: async (id) => {
      imagesInspected.push(id);
      return { id, repoTags: [], repoDigests: [], os: 'linux', architecture: 'amd64' };
    },
  });
  return { host, inspected, imagesInspected };
}

describe('withListedDetails (dockwatch check without per-container inspects, issue 29)', () => {
  it("answers a listed container's details from the listing, without asking the Engine", async () => {
    const web = summary('web', { 'dd.tag.include': '^1\\.' });
    const { host, inspected } = countingHost([[web]]);
    const listed = withListedDetails(host);
    expect(await listed.listContainers(false)).toEqual([web]);
    expect(await listed.inspectContainer(web.id)).toEqual({ ...web, env: [], restartCount: 0 });
    expect(inspected).toEqual([]);
  });

  it('inspects a container the listing did not show, and forgets one the next listing leaves out', async () => {
    const web = summary('web');
    const { host, inspected } = countingHost([[web], []]);
    const listed = withListedDetails(host);
    expect(await listed.inspectContainer(web.id)).toBeUndefined();
    await listed.listContainers(true);
    expect(await listed.inspectContainer('late')).toMatchObject({ env: ['A=1'], restartCount: 2 });
    await listed.listContainers(true);
    expect(await listed.inspectContainer(web.id)).toBeUndefined();
    expect(inspected).toEqual([web.id, 'late', web.id]);
  });

  it('passes images and everything else to the host', async () => {
    const { host, imagesInspected } = countingHost([]);
    const listed = withListedDetails(host);
    expect(listed.endpoint).toBe(host.endpoint);
    expect(await listed.inspectImage('sha256:web')).toMatchObject({ id: 'sha256:web', os: 'linux' });
    expect(imagesInspected).toEqual(['sha256:web']);
    expect(() => listed.stats('x')).toThrow('not expected in this test');
  });
});
