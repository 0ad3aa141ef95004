import type { AgentFrame } from '../../../shared/edge/protocol';
import type { Logger } from '../../../shared/logging/logger';
import { fitsContainer, fitsImage } from '../link/frame-checks';
import type { EdgeSender } from '../link/send-queue';
import { observeWatcher } from './observe-watcher';
import { partitionSnapshot } from './snapshot-parts';
import type { WatcherRuntime } from './watcher-runtime';

export interface SnapshotResult {
  syncId: string;
  containers: number;
}

/**
 * One full snapshot of a watcher: the feed's deltas are held while the host is observed and the
 * parts are sent (each part waits for room in the send queue), then released, so every delta the
 * hub gets after the snapshot is newer than it. Throws when the observation fails or the session
 * ends midway: the hub then applies nothing (it waits for `last: true`).
 */
export async function sendSnapshot(
  watcher: WatcherRuntime,
  sender: EdgeSender,
  isOpen: () => boolean,
  logger: Logger,
  operationId?: string,
): Promise<SnapshotResult> {
  const release = watcher.feed.hold();
  try {
    const observation = await observeWatcher(watcher.host, watcher.config.watchAll);
    const containers = observation.containers.filter(fitsContainer);
    if (containers.length < observation.containers.length) {
      const left = observation.containers.filter((c) => !fitsContainer(c)).map((c) => c.id);
      logger.warn(
        `watcher ${watcher.name}: ${left.length} container(s) exceed the edge protocol's limits and are left out: ${left.join(', ')}`,
      );
    }
    const parts = partitionSnapshot({ containers, images: observation.images.filter(fitsImage) });
    const syncId = crypto.randomUUID();
    for (const part of parts) {
      await sender.whenWritable();
      if (!isOpen()) throw new Error('the session ended during the snapshot');
      const frame: AgentFrame = {
        type: 'snapshot',
        watcher: watcher.name,
        syncId,
        ...(operationId !== undefined ? { operationId } : {}),
        part: part.part,
        last: part.last,
        containers: part.containers,
        images: part.images,
      };
      sender.send(frame);
    }
    logger.debug(
      `watcher ${watcher.name}: snapshot ${syncId} sent (${containers.length} containers, ${parts.length} part(s))`,
    );
    return { syncId, containers: containers.length };
  } finally {
    release();
  }
}
