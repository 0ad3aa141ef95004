import { canPullImages, type DockerImageDetails, type RegistryPullAuth } from '../../../shared/docker/docker-host';
import { EDGE_EXPORT_CHUNK_BYTES } from '../../../shared/edge/protocol';
import type { WatcherRuntime } from '../feed/watcher-runtime';
import { EdgeRequestError } from './request-error';

/**
 * `image.export` (docs/edge-protocol.md "Image export"): the image as the watcher's Docker saves it,
 * cut into chunks of EDGE_EXPORT_CHUNK_BYTES. `send` waits for the hub's credit and for room in the
 * send queue; meanwhile this loop does not ask the Engine's stream for more, so Node pauses it and
 * the Docker read waits with it. A `cancel` (the signal) ends the Engine's stream.
 */
export async function exportImage(
  watcher: WatcherRuntime,
  imageId: string,
  signal: AbortSignal,
  send: (bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  const { host } = watcher;
  if (!host.exportImage) throw new EdgeRequestError('unsupported', `watcher ${watcher.name} cannot export images`);
  let pending = Buffer.allocUnsafe(EDGE_EXPORT_CHUNK_BYTES);
  let filled = 0;
  for await (const piece of host.exportImage(imageId, signal)) {
    let offset = 0;
    while (offset < piece.length) {
      const taken = Math.min(piece.length - offset, EDGE_EXPORT_CHUNK_BYTES - filled);
      pending.set(piece.subarray(offset, offset + taken), filled);
      filled += taken;
      offset += taken;
      if (filled === EDGE_EXPORT_CHUNK_BYTES) {
        await send(pending);
        if (signal.aborted) return;
        pending = Buffer.allocUnsafe(EDGE_EXPORT_CHUNK_BYTES);
        filled = 0;
      }
    }
  }
  if (filled > 0 && !signal.aborted) await send(pending.subarray(0, filled));
}

/**
 * `image.pull` (and a listen-mode agent's `POST /api/images/pull`): the scanner's candidate, pulled
 * where the update would pull it; answers the image. `signal` (the hub's cancel, the route's
 * deadline) ends the wait for the Engine's pull.
 */
export async function pullImage(
  watcher: Pick<WatcherRuntime, 'name' | 'host'>,
  reference: string,
  auth: RegistryPullAuth | undefined,
  signal?: AbortSignal,
): Promise<DockerImageDetails> {
  const { host } = watcher;
  if (!canPullImages(host)) throw new EdgeRequestError('unsupported', `watcher ${watcher.name} cannot pull images`);
  return host.pullImage(reference, auth, signal);
}
