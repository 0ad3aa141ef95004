import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import { EDGE_SNAPSHOT_PART_SIZE } from '../../../shared/edge/protocol';
import type { WatcherObservation } from './observe-watcher';

export interface SnapshotPart {
  part: number;
  last: boolean;
  containers: DockerContainerDetails[];
  images: DockerImageDetails[];
}

export interface PartLimits {
  /** At most this many containers per part (the protocol's limit). */
  containers: number;
  /** Keeps a part well under the 4 MiB frame cap even when containers carry large env or labels. */
  bytes: number;
}

export const DEFAULT_PART_LIMITS: PartLimits = { containers: EDGE_SNAPSHOT_PART_SIZE, bytes: 2 * 1024 * 1024 };

const encoder = new TextEncoder();
const sizeOf = (value: unknown) => encoder.encode(JSON.stringify(value)).length;

/**
 * Splits an observation into snapshot parts: at most `containers` per part and about `bytes` of
 * JSON (a single larger container gets a part of its own). Each image travels once per snapshot,
 * in the first part with a container that uses it. An empty inventory is one empty, last part, so
 * the hub still learns that nothing runs.
 */
export function partitionSnapshot(
  observation: WatcherObservation,
  limits: PartLimits = DEFAULT_PART_LIMITS,
): SnapshotPart[] {
  const imagesById = new Map(observation.images.map((image) => [image.id, image]));
  const sent = new Set<string>();
  const parts: SnapshotPart[] = [];
  let current: SnapshotPart = { part: 0, last: false, containers: [], images: [] };
  let bytes = 0;
  for (const container of observation.containers) {
    const image = sent.has(container.imageId) ? undefined : imagesById.get(container.imageId);
    const cost = sizeOf(container) + (image ? sizeOf(image) : 0);
    if (
      current.containers.length > 0 &&
      (current.containers.length >= limits.containers || bytes + cost > limits.bytes)
    ) {
      parts.push(current);
      current = { part: parts.length, last: false, containers: [], images: [] };
      bytes = 0;
    }
    current.containers.push(container);
    if (image) {
      current.images.push(image);
      sent.add(image.id);
    }
    bytes += cost;
  }
  parts.push(current);
  current.last = true;
  return parts;
}
