import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { DockerImageSummary } from '../../../shared/docker/docker-host';
import { EDGE_IMAGE_LIST_MAX, ImageListResultSchema } from '../../../shared/edge/protocol';
import { cutImageList } from './image-list';

const image = (n: number, tags = 1): DockerImageSummary => ({
  id: `sha256:${n.toString(16).padStart(64, '0')}`,
  repoTags: Array.from({ length: tags }, (_, t) => `registry.example/app-${n}:${t}`),
  repoDigests: [],
  createdAt: 1_700_000_000_000 + n,
  sizeBytes: 1000 + n,
  containers: -1,
});

describe('the image.list reply', () => {
  it('answers every image, untruncated, when they fit', () => {
    const all = [image(1), image(2)];
    expect(cutImageList(all)).toEqual({ images: all, truncated: false });
    expect(cutImageList([])).toEqual({ images: [], truncated: false });
  });

  it('cuts at the image cap, in Docker order, and says so in a reply the hub accepts', () => {
    const all = Array.from({ length: EDGE_IMAGE_LIST_MAX + 3 }, (_, n) => image(n));
    const reply = cutImageList(all);
    expect(reply.truncated).toBe(true);
    expect(reply.images).toHaveLength(EDGE_IMAGE_LIST_MAX);
    expect(reply.images.at(-1)).toEqual(all[EDGE_IMAGE_LIST_MAX - 1]);
    expect(v.is(ImageListResultSchema, reply)).toBe(true);
  });

  it('cuts before the reply would pass the byte budget (images with many tags)', () => {
    const all = Array.from({ length: 50 }, (_, n) => image(n, 40));
    const budget = 10 * (JSON.stringify(all[0]).length + 1);
    const reply = cutImageList(all, EDGE_IMAGE_LIST_MAX, budget);
    expect(reply.truncated).toBe(true);
    // Images 0-9 are the same size (one-digit names): exactly ten fit.
    expect(reply.images).toEqual(all.slice(0, 10));
  });
});
