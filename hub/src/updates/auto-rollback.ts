import { errorText, type UpdateOperation } from '../../../shared/update-engine';
import { identityOf, type UpdateContext, updatableWatcher } from './update-context';

export const DEFAULT_AUTO_ROLLBACK_POLL_MS = 2_000;

export type RollbackStarter = (operation: UpdateOperation, reason: string) => Promise<void>;

/**
 * Automatic rollback (`dd.rollback.auto`): after a successful update the new container is watched
 * until its window ends; if it turns unhealthy meanwhile, it goes back to what it ran before. The
 * watch stops early when the container goes away or another operation takes it over. Windows are
 * resumed after a restart (the window runs from the operation's updatedAt).
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
    if (this.context.services().now() >= until) return;
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
        this.context.logger.warn('automatic rollback check failed', { operationId: operation.id, error: errorText(error) }),
      );
    }, pollMs);
    this.timers.set(operation.id, timer);
  }

  private async check(operation: UpdateOperation, until: number): Promise<void> {
    const claimedBy = this.context.claims.get(identityOf(operation));
    if (claimedBy !== undefined && claimedBy !== operation.id) return;
    const reached = updatableWatcher(this.context, operation.watcher);
    const details = reached && operation.newContainerId ? await reached.host.inspectContainer(operation.newContainerId) : undefined;
    if (!details) return;
    if (details.health === 'unhealthy') {
      await this.startRollback(
        operation,
        `the container turned unhealthy within ${Math.round((operation.autoRollbackWindowMs ?? 0) / 1000)} s of its update`,
      );
      return;
    }
    if (this.context.services().now() < until) this.schedule(operation, until);
  }
}
