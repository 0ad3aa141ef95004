import type { AgentActionResult, AgentEvent, ParsedAgentContainer } from '../../../shared/agent-api/listen-schemas';
import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import type { Logger } from '../../../shared/logging/logger';
import type { UpdateOperation } from '../../../shared/update-engine';
import type { AgentRuntime } from '../agents/agent-runtime';

/**
 * A listen-mode agent's inventory as the hub mirrors it in the agent's EdgeDockerHosts (one per
 * watcher), for one connection. The event stream and the answers to requests (the full list, an
 * inventory refresh, an action) travel on separate connections, so each carries the revision of
 * the agent's state it reflects: an event not newer than an answer already applied for its
 * watcher (or its container) is dropped, whatever order they arrive in.
 */
export class ListenReplica {
  private readonly watcherFloor = new Map<string, number>();
  private readonly containerFloor = new Map<string, number>();

  constructor(
    private readonly agentName: string,
    private readonly runtime: AgentRuntime,
    /** Whether the hub still awaits this inventory operation (http-interface §4.3, §6.2): others' events are ignored. */
    private readonly isAwaited: (watcher: string, operationId: string) => boolean,
    private readonly logger: Logger,
  ) {}

  /** GET /api/containers on (re)connect: every watcher's whole inventory; their watchers start. */
  applyFull(containers: readonly ParsedAgentContainer[], revision: number | undefined): void {
    for (const { config } of this.runtime.list()) {
      const mine = containers.filter((container) => container.watcher === config.name);
      this.runtime.applySnapshot(config.name, ...viewsOf(mine), true);
      if (revision !== undefined) this.watcherFloor.set(config.name, revision);
    }
    this.containerFloor.clear();
  }

  /**
   * GET /api/operations on (re)connect, before applyFull: the agent's unfinished and recently
   * settled updates, as an edge agent reports them before its first snapshot, so an update the
   * hub awaits is known to have run (or not) once the inventory is synced.
   */
  applyOperations(operations: readonly UpdateOperation[]): void {
    for (const operation of operations) this.runtime.get(operation.watcher)?.host.applyOperation(operation);
  }

  /** The answer of an inventory refresh: applied only while its operation is the awaited one. */
  applyInventory(
    watcher: string,
    operationId: string,
    containers: readonly ParsedAgentContainer[],
    revision: number | undefined,
  ): boolean {
    if (!this.isAwaited(watcher, operationId)) return false;
    this.runtime.applySnapshot(watcher, ...viewsOf(containers), false);
    if (revision !== undefined) this.watcherFloor.set(watcher, Math.max(revision, this.watcherFloor.get(watcher) ?? 0));
    return true;
  }

  /** The container after an action, in or out of the inventory: the hub answers the API call from it. */
  applyAction(result: AgentActionResult, revision: number | undefined): void {
    const host = this.runtime.get(result.watcher)?.host;
    if (!host) return;
    if (result.container) host.applyChanged(result.container.docker.container, result.container.docker.image);
    else host.applyRemoved(result.id);
    if (revision !== undefined)
      this.containerFloor.set(result.id, Math.max(revision, this.containerFloor.get(result.id) ?? 0));
  }

  /** One message of the event stream; `revision` is its SSE id. */
  applyEvent(event: AgentEvent, revision: number | undefined): void {
    switch (event.type) {
      case 'dd:ack':
        break;
      case 'dd:operation':
        // Never stale: the host keeps each operation's latest state by its own clock (AgentOperations).
        this.runtime.get(event.data.watcher)?.host.applyOperation(event.data);
        break;
      case 'dd:container-added':
      case 'dd:container-updated':
        this.changed(event.data, revision);
        break;
      case 'dd:container-removed':
        this.removed(event.data.watcher ?? this.watcherHolding(event.data.id), event.data.id, revision);
        break;
      case 'dd:inventory-added':
      case 'dd:inventory-updated':
      case 'dd:inventory-removed':
        if (!this.isAwaited(event.data.watcher, event.data.operationId)) {
          this.logger.debug('ignored an inventory event of an unknown or expired operation', {
            agent: this.agentName,
            type: event.type,
          });
        } else if (event.type === 'dd:inventory-removed') this.removed(event.data.watcher, event.data.id, revision);
        else this.changed(event.data.container, revision);
        break;
    }
  }

  private changed(container: ParsedAgentContainer, revision: number | undefined): void {
    if (this.stale(container.watcher, container.id, revision)) return;
    this.runtime.get(container.watcher)?.host.applyChanged(container.docker.container, container.docker.image);
  }

  private removed(watcher: string | undefined, id: string, revision: number | undefined): void {
    if (watcher === undefined || this.stale(watcher, id, revision)) return;
    this.runtime.get(watcher)?.host.applyRemoved(id);
  }

  private stale(watcher: string, id: string, revision: number | undefined): boolean {
    if (revision === undefined) return false;
    return revision <= (this.watcherFloor.get(watcher) ?? 0) || revision <= (this.containerFloor.get(id) ?? 0);
  }

  private watcherHolding(id: string): string | undefined {
    return this.runtime.list().find(({ host }) => host.inventory().some((container) => container.id === id))?.config
      .name;
  }
}

/** The Docker views of a list of agent containers: details, and each image once. */
function viewsOf(containers: readonly ParsedAgentContainer[]): [DockerContainerDetails[], DockerImageDetails[]] {
  const images = new Map<string, DockerImageDetails>();
  for (const { docker } of containers) if (docker.image) images.set(docker.image.id, docker.image);
  return [containers.map(({ docker }) => docker.container), [...images.values()]];
}
