import * as v from 'valibot';
import { ImageListSchema, PrunePreviewSchema, PruneResultSchema } from '../../../shared/schemas/image-views';
import type { RouteGroup } from '../http/route-group';
import { type ImageInventoryDeps, listImages, pruneImages } from '../updates/image-inventory';

const ImageIdSchema = v.pipe(v.string(), v.regex(/^sha256:[a-f0-9]{64}$/, 'Expected an image id sha256:<64 hex>'));
const PruneBodySchema = v.optional(
  v.object({ imageIds: v.optional(v.pipe(v.array(ImageIdSchema), v.minLength(1), v.maxLength(1000))) }),
  {},
);

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
