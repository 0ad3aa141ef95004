import type { DockerImageSummary } from '../../../shared/docker/docker-host';
import { EDGE_IMAGE_LIST_MAX, EDGE_MAX_FRAME_BYTES, type ImageListResult } from '../../../shared/edge/protocol';

/** Half the frame cap: the reply frame stays under the hub's limit whatever the tags and digests. */
export const IMAGE_LIST_MAX_BYTES = EDGE_MAX_FRAME_BYTES / 2;

/**
 * The `image.list` reply: the images in Docker's order, cut at `maxImages` or once their JSON
 * would pass `maxBytes`, `truncated` saying some were left out (the hub then names the host in
 * its `errors`, and shows and prunes only these).
 */
export function cutImageList(
  all: readonly DockerImageSummary[],
  maxImages = EDGE_IMAGE_LIST_MAX,
  maxBytes = IMAGE_LIST_MAX_BYTES,
): ImageListResult {
  const images: DockerImageSummary[] = [];
  let bytes = 0;
  for (const image of all) {
    bytes += JSON.stringify(image).length + 1;
    if (images.length >= maxImages || bytes > maxBytes) return { images, truncated: true };
    images.push(image);
  }
  return { images, truncated: false };
}
