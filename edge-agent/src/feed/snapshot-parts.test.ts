import { describe, expect, it } from 'vitest';
import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import { EDGE_SNAPSHOT_PART_SIZE } from '../../../shared/edge/protocol';
import { DEFAULT_PART_LIMITS, partitionSnapshot } from './snapshot-parts';

const image = (n: number): DockerImageDetails => ({
  id: `sha256:${n}`,
  repoTags: [`app:${n}`],
  repoDigests: [],
  os: 'linux',
  architecture: 'amd64',
});
const container = (n: number, imageN: number, env: string[] = []): DockerContainerDetails => ({
  id: `c${n}`,
  name: `c${n}`,
  image: `app:${imageN}`,
  imageId: `sha256:${imageN}`,
  state: 'running',
  labels: {},
  createdAt: 0,
  env,
  restartCount: 0,
});

describe('snapshot parts', () => {
  it('splits into parts of at most 200 containers, numbered, the last one marked', () => {
    const containers = Array.from({ length: 450 }, (_, n) => container(n, n % 3));
    const parts = partitionSnapshot({ containers, images: [0, 1, 2].map(image) });
    expect(parts.map((p) => p.containers.length)).toEqual([200, 200, 50]);
    expect(parts.map((p) => p.part)).toEqual([0, 1, 2]);
    expect(parts.map((p) => p.last)).toEqual([false, false, true]);
    expect(parts.flatMap((p) => p.containers)).toEqual(containers);
    expect(EDGE_SNAPSHOT_PART_SIZE).toBe(DEFAULT_PART_LIMITS.containers);
  });

  it('sends each image once, in the first part that uses it, and no unused image', () => {
    const containers = [
      ...Array.from({ length: 200 }, (_, n) => container(n, 1)),
      container(200, 2),
      container(201, 1),
    ];
    const parts = partitionSnapshot({ containers, images: [1, 2, 3].map(image) });
    expect(parts.map((p) => p.images.map((i) => i.id))).toEqual([['sha256:1'], ['sha256:2']]);
  });

  it('is one empty, last part for an empty host, so the hub learns that nothing runs', () => {
    expect(partitionSnapshot({ containers: [], images: [] })).toEqual([
      { part: 0, last: true, containers: [], images: [] },
    ]);
  });

  it('starts a new part before a part grows past the byte budget, and gives an oversized container its own', () => {
    const big = (n: number) => container(n, 1, [`BLOB=${'x'.repeat(400)}`]);
    const parts = partitionSnapshot(
      {
        containers: [big(0), big(1), big(2), container(3, 1, [`HUGE=${'y'.repeat(3_000)}`]), big(4)],
        images: [image(1)],
      },
      {
        containers: 200,
        bytes: 1_200,
      },
    );
    expect(parts.map((p) => p.containers.map((c) => c.id))).toEqual([['c0', 'c1'], ['c2'], ['c3'], ['c4']]);
    expect(parts.at(-1)?.last).toBe(true);
  });
});
