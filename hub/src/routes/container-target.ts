import type { Container } from '../../../shared/schemas/container';
import { HttpError } from '../http/http-error';
import type { HubServices } from '../hub-services';
import type { DockerWatcher } from '../watchers/docker-watcher';

/** The stored container with this id, or a 404 (ids are echoed clipped: they come from the URL). */
export function findContainer(services: HubServices, id: string): Container {
  const container = services.containers.get(id);
  if (!container) throw new HttpError(404, `Unknown container ${id.slice(0, 80)}`);
  return container;
}

/**
 * The watcher that reaches the container's Docker host, or a 503. Remote agents' containers have
 * no local watcher: their commands go over the edge link, which these routes do not speak yet.
 */
export function watcherOf(services: HubServices, container: Container): DockerWatcher {
  const watcher = container.agent === undefined ? services.watchers.find((w) => w.name === container.watcher) : undefined;
  if (!watcher) throw new HttpError(503, `The watcher ${container.watcher} is not available`, { watcher: container.watcher });
  return watcher;
}

export { imageOf } from '../watchers/container-record';

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
