import type { Container } from '../../../shared/schemas/container';
import { WATCHER_TYPE_CAPABILITIES } from '../../../shared/sources/watcher-types';
import { HttpError } from '../http/http-error';
import type { ContainerStore } from '../store/container-store';
import type { DockerWatcher } from '../watchers/docker-watcher';
import type { Fleet } from '../watchers/fleet';

/** Whether an agent's link is up: its watchers stay in the fleet while it is away. */
export interface AgentPresence {
  isConnected(agentName: string): boolean;
}

/** What a route needs to reach the Docker host of a stored container. */
export interface ContainerHosts {
  fleet: Fleet;
  agents: AgentPresence;
}

/** The stored container with this id, or a 404 (ids are echoed clipped: they come from the URL). */
export function findContainer(containers: Pick<ContainerStore, 'get'>, id: string): Container {
  const container = containers.get(id);
  if (!container) throw new HttpError(404, `Unknown container ${id.slice(0, 80)}`);
  return container;
}

/**
 * The watcher that reaches the container's Docker host, or a 503: the hub's own watcher, or for
 * an agent's container the agent's watcher, whose host sends the command over the agent's link
 * (503 while the agent is away).
 */
export function watcherOf(hosts: ContainerHosts, container: Container): DockerWatcher {
  const watcher = hosts.fleet.ownerOf(container);
  const agent = container.agent;
  if (agent !== undefined) {
    if (!watcher) {
      throw new HttpError(503, `The watcher ${container.watcher} of agent ${agent} is not available`, {
        watcher: container.watcher,
        agent,
      });
    }
    if (!hosts.agents.isConnected(agent)) throw new HttpError(503, `The agent ${agent} is not connected`, { agent });
    return watcher;
  }
  if (!watcher)
    throw new HttpError(503, `The watcher ${container.watcher} is not available`, { watcher: container.watcher });
  return watcher;
}

/**
 * watcherOf, for start, stop, restart, logs and stats: a record of a watcher type without container
 * actions (a Swarm service, a file's image reference) is refused with 409 rather than failing in Docker.
 */
export function actionableWatcherOf(hosts: ContainerHosts, container: Container): DockerWatcher {
  const watcher = watcherOf(hosts, container);
  const type = WATCHER_TYPE_CAPABILITIES.find((each) => each.type === watcher.type);
  if (type && !type.containerActions) {
    throw new HttpError(409, `${container.name} is watched by ${watcher.id}, whose records have no container actions`, {
      reason: 'no-container-actions',
      watcher: watcher.id,
    });
  }
  return watcher;
}
