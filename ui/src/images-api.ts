// The image routes (http-interface §4.14, decisions §5: admin), typed from the schemas that validate
// them: `import type` only, so nothing of valibot or the hub is bundled.
import type * as v from 'valibot';
import type {
  ImageListSchema,
  ImageViewSchema,
  PrunePreviewSchema,
  PruneResultSchema,
} from '../../shared/schemas/image-views';
import { call } from './api';

export type ImageView = v.InferOutput<typeof ImageViewSchema>;
export type ImageList = v.InferOutput<typeof ImageListSchema>;
export type PrunePreview = v.InferOutput<typeof PrunePreviewSchema>;
export type PruneResult = v.InferOutput<typeof PruneResultSchema>;

/** The token http-interface §4.1 requires on POST /images/prune. */
const IMAGE_PRUNE = 'image-prune';

export const imagesApi = {
  list: () => call<ImageList>('/images'),
  prunePreview: () => call<PrunePreview>('/images/prune-preview'),
  /** Only the ids the person saw in the preview: an image that became unused since is left alone. */
  prune: (imageIds: string[]) =>
    call<PruneResult>('/images/prune', {
      method: 'POST',
      body: { imageIds },
      headers: { 'x-dd-confirm-action': IMAGE_PRUNE },
    }),
};
