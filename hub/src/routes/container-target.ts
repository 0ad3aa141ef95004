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
 * The watcher that reaches the container's Docker host, or a 503: the hub's own watcher, or for
 * an edge agent's container the agent's watcher, whose host sends the command over the agent's
 * session (503 while the agent is away).
 */
export function watcherOf(services: HubServices, container: Container): DockerWatcher {
  const agent = container.agent;
  if (agent !== undefined) {
    const watcher = services.edge?.runtime(agent)?.get(container.watcher)?.watcher;
    if (!watcher) {
      throw new HttpError(503, `The watcher ${container.watcher} of agent ${agent} is not available`, {
        watcher: container.watcher,
        agent,
      });
    }
    if (!services.edge?.isConnected(agent)) throw new HttpError(503, `The agent ${agent} is not connected`, { agent });
    return watcher;
  }
  const watcher = services.fleet.find(container.watcher, undefined);
  if (!watcher) throw new HttpError(503, `The watcher ${container.watcher} is not available`, { watcher: container.watcher });
  return watcher;
}

export { imageOf } from '../../../shared/containers/container-record';

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
