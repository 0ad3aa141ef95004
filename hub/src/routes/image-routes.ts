import * as v from 'valibot';
import type { RouteGroup } from '../http/route-group';
import { type ImageInventoryDeps, listImages, pruneImages } from '../updates/image-inventory';

export const ImageViewSchema = v.object({
  id: v.string(),
  watcher: v.string(),
  /** The edge agent whose host holds it; absent for the hub's own hosts. */
  agent: v.optional(v.string()),
  repoTags: v.array(v.string()),
  repoDigests: v.array(v.string()),
  createdAt: v.string(),
  sizeBytes: v.number(),
  containers: v.array(v.string()),
  keptBy: v.array(v.picklist(['container', 'backup', 'update-operation'])),
  prunable: v.boolean(),
});
export const HostFailureSchema = v.object({ watcher: v.string(), agent: v.optional(v.string()), error: v.string() });
const ImageIdSchema = v.pipe(v.string(), v.regex(/^sha256:[a-f0-9]{64}$/, 'Expected an image id sha256:<64 hex>'));
const PruneBodySchema = v.optional(
  v.object({ imageIds: v.optional(v.pipe(v.array(ImageIdSchema), v.minLength(1), v.maxLength(1000))) }),
  {},
);

// Exported for the web UI's types (`import type` only).
export const ImageListSchema = v.object({
  data: v.array(ImageViewSchema),
  total: v.number(),
  errors: v.array(HostFailureSchema),
});
export const PrunePreviewSchema = v.object({
  data: v.array(ImageViewSchema),
  total: v.number(),
  reclaimableBytes: v.number(),
  errors: v.array(HostFailureSchema),
});
export const PruneResultSchema = v.object({
  removed: v.array(ImageViewSchema),
  skipped: v.array(v.object({ id: v.string(), watcher: v.string(), agent: v.optional(v.string()), error: v.string() })),
  reclaimedBytes: v.number(),
  errors: v.array(HostFailureSchema),
});

/** The image routes read and prune through the image inventory, and need only what it needs. */
export type ImageRoutesDeps = ImageInventoryDeps;

/**
 * Images of the hub's own Docker hosts and of its edge agents' hosts (http-interface §4.14; admin per
 * decisions §5). A prune removes only images no container uses, no kept backup needs and no
 * unsettled update works with.
 */
export function registerImageRoutes(api: RouteGroup, deps: ImageRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/images',
      access: 'admin',
      tag: 'images',
      summary: 'Images of every watcher’s Docker host (edge agents’ included), with what keeps each one from a prune',
      response: ImageListSchema,
    },
    async (c) => {
      const { images, errors } = await listImages(deps);
      return c.json({ data: images, total: images.length, errors });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/images/prune-preview',
      access: 'admin',
      tag: 'images',
      summary: 'The images a prune would remove now, touching nothing',
      response: PrunePreviewSchema,
    },
    async (c) => {
      const { images, errors } = await listImages(deps);
      const data = images.filter((image) => image.prunable);
      return c.json({
        data,
        total: data.length,
        reclaimableBytes: data.reduce((sum, image) => sum + image.sizeBytes, 0),
        errors,
      });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/images/prune',
      access: 'admin',
      tag: 'images',
      summary:
        'Remove the images no container, kept backup or unsettled update needs (all of them, or the imageIds given)',
      confirm: 'image-prune',
      body: PruneBodySchema,
      response: PruneResultSchema,
      statuses: { 400: 'Invalid imageIds' },
    },
    async (c, { body }) => c.json(await pruneImages(deps, body.imageIds)),
  );
}
