import type { DockerContainerDetails } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import type { UpdateOperation } from '../../../shared/update-engine';
import { agentHostOf } from './agent-update-runner';
import { identityOf, type UpdateContext, updatableWatcher } from './update-context';

export const DEFAULT_AUTO_ROLLBACK_POLL_MS = 2_000;

export type RollbackStarter = (operation: UpdateOperation, reason: string) => Promise<void>;

/**
 * Automatic rollback (`dd.rollback.auto`): after a successful update the new container is watched
 * until its window ends; if it turns unhealthy meanwhile, it goes back to what it ran before. The
 * watch stops early when the container goes away or another operation takes it over. Windows are
 * resumed after a restart (the window runs from the operation's updatedAt). An agent's container
 * is read from the inventory its agent pushes; while the agent is away the window goes on unread.
 */
export class AutoRollbackMonitor {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly context: UpdateContext,
    private readonly startRollback: RollbackStarter,
  ) {}

  watch(operation: UpdateOperation): void {
    const window = operation.autoRollbackWindowMs;
    if (operation.kind !== 'update' || operation.status !== 'succeeded' || !window || !operation.newContainerId) return;
    const until = Date.parse(operation.updatedAt) + window;
    if (this.context.hub.now() >= until) return;
    this.schedule(operation, until);
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(operation: UpdateOperation, until: number): void {
    const pollMs = this.context.options.autoRollbackPollMs ?? DEFAULT_AUTO_ROLLBACK_POLL_MS;
    const timer = setTimeout(() => {
      this.timers.delete(operation.id);
      this.check(operation, until).catch((error: unknown) =>
        this.context.logger.warn('automatic rollback check failed', {
          operationId: operation.id,
          error: errorMessage(error),
        }),
      );
    }, pollMs);
    this.timers.set(operation.id, timer);
  }

  private async check(operation: UpdateOperation, until: number): Promise<void> {
    const claimedBy = this.context.claims.get(identityOf(operation));
    if (claimedBy !== undefined && claimedBy !== operation.id) return;
    let details: DockerContainerDetails | undefined;
    try {
      details = await this.inspectNew(operation);
    } catch (error) {
      // An agent away (or a host not answering) says nothing about health: look again while the window lasts.
      this.context.logger.debug('automatic rollback: the container could not be read', {
        operationId: operation.id,
        error: errorMessage(error),
      });
      if (this.context.hub.now() < until) this.schedule(operation, until);
      return;
    }
    if (!details) return;
    if (details.health === 'unhealthy') {
      await this.startRollback(
        operation,
        `the container turned unhealthy within ${Math.round((operation.autoRollbackWindowMs ?? 0) / 1000)} s of its update`,
      );
      return;
    }
    if (this.context.hub.now() < until) this.schedule(operation, until);
  }

  /** The new container on its own host: the hub's local watcher, or its agent's inventory. */
  private async inspectNew(operation: UpdateOperation): Promise<DockerContainerDetails | undefined> {
    if (!operation.newContainerId) return undefined;
    const host =
      operation.agent === undefined
        ? updatableWatcher(this.context, operation.watcher)?.host
        : agentHostOf(this.context, operation);
    return host?.inspectContainer(operation.newContainerId);
  }
}
