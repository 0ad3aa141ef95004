import type { ComposeFileEditor } from '../../../shared/compose';
import { canUpdateContainers, type UpdatableDockerHost } from '../../../shared/docker/docker-host';
import type { Logger } from '../../../shared/logging/logger';
import type { HookRunner } from '../../../shared/update/hooks';
import { containerIdentity } from '../../../shared/update/update-clock';
import {
  type HealthTiming,
  publicOperation,
  type UpdateOperation,
  type UpdateScheduler,
} from '../../../shared/update-engine';
import type { AgentRegistry } from '../agents/agent-registry';
import type { HubConfig } from '../config/hub-config';
import type { Publish } from '../events/event-bus';
import type { NotificationService } from '../notifications/notification-service';
import type { RegistryService } from '../registries/registry-service';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import type { DockerWatcher } from '../watchers/docker-watcher';
import type { Fleet } from '../watchers/fleet';
import type { DockerActionTrigger } from './action-triggers';
import type { ApprovalGate, SecurityGate } from './approval-gate';
import type { BackupStore } from './backup-store';
import type { UpdateOperationStore } from './operation-store';
import type { SelfUpdates } from './self-update/self-update-service';

/** Runtime tuning and test seams of the update capability (HubDeps.updates). */
export interface UpdateServiceOptions {
  /** Told after every journal write, before the next Docker call: crash tests pause a hub here. */
  afterSave?: ((operation: UpdateOperation) => Promise<void>) | undefined;
  /** Health polling and the start check of images without a healthcheck. */
  timing?: Partial<HealthTiming> | undefined;
  /** How long a self-update waits for a UI's ack of dd:self-update (default 15 s). */
  selfUpdateAckTimeoutMs?: number | undefined;
  /** Operations running at once (default 8). */
  maxConcurrent?: number | undefined;
  /** How often a container under automatic rollback is inspected (default 2 s). */
  autoRollbackPollMs?: number | undefined;
  /** Retry of a recovery whose Docker host did not answer (default 30 s). */
  recoveryRetryMs?: number | undefined;
}

/** Everything the update capability reads or tells outside itself. */
export interface UpdateServiceDeps {
  now: () => number;
  publish: Publish;
  fleet: Fleet;
  /** What each agent said of itself and its watchers at its last sign-in. */
  agentDescriptions: Pick<AgentRegistry, 'get'>;
  containers: Pick<ContainerStore, 'get'>;
  audit: Pick<AuditStore, 'append'>;
  settings: Pick<SettingsStore, 'get'>;
  notifications: Pick<NotificationService, 'updateApplied' | 'updateFailed'>;
  /** Registry credentials for pulls; absent without registry providers. */
  registries: { service: RegistryService } | undefined;
  config: Pick<HubConfig, 'server' | 'watchers' | 'hooks'>;
  /** The container the hub runs in, never updated by it. */
  selfContainerId: string | undefined;
  /** Runs dd.hook.pre / dd.hook.post on the hub's host; hooks are refused where absent. */
  hookRunner: HookRunner | undefined;
  runtime: string;
  /** Brings compose files to the new image; absent where the runtime has no files. */
  composeFiles: ComposeFileEditor | undefined;
  /** The approval gate (docs/approvals.md); absent, no update waits for one. */
  approvals?: ApprovalGate | undefined;
  /** The security gate (docs/security-scanning.md); absent, no finding blocks an update. */
  security?: SecurityGate | undefined;
  /** The hub's own container, updated through a helper container (docs/updates.md "Self-update"); absent, it is refused as a lifeline. */
  selfUpdates?: SelfUpdates | undefined;
}

/** What the parts of the update capability share. */
export interface UpdateContext {
  hub: UpdateServiceDeps;
  options: UpdateServiceOptions;
  logger: Logger;
  triggers: readonly DockerActionTrigger[];
  store: UpdateOperationStore;
  backups: BackupStore;
  scheduler: UpdateScheduler;
  /** The per-container lock: identity → the operation holding it, from request to settled. */
  claims: Map<string, string>;
  /** Operations cancelled by a user: settled without a failure notification. */
  cancelled: Map<string, string>;
}

export const identityOf = (operation: Pick<UpdateOperation, 'agent' | 'watcher' | 'containerName'>) =>
  containerIdentity({ agent: operation.agent, watcher: operation.watcher, name: operation.containerName });

export function isoNow(context: UpdateContext): string {
  return new Date(context.hub.now()).toISOString();
}

/** The hub's own watcher of that name with a host that can update containers (edge agents' cannot yet). */
export function updatableWatcher(
  context: UpdateContext,
  watcherName: string,
): { watcher: DockerWatcher; host: UpdatableDockerHost } | undefined {
  const watcher = context.hub.fleet.find(watcherName, undefined);
  if (!watcher || !canUpdateContainers(watcher.host)) return undefined;
  return { watcher, host: watcher.host };
}

export function triggerById(context: UpdateContext, id: string | undefined): DockerActionTrigger | undefined {
  return context.triggers.find((trigger) => trigger.id === id);
}

/** Where the operation's container runs, as the update events carry it (shared/schemas/ui-events.ts). */
export const updateHostOf = (operation: Pick<UpdateOperation, 'agent' | 'watcher'>) => ({
  agent: operation.agent ?? null,
  watcher: operation.watcher,
});

/** dd:update-operation-changed (http-interface §6.1), with the queue as it stands. */
export function publishChanged(context: UpdateContext, operation: UpdateOperation): void {
  const queue = context.scheduler.position(operation.id) ?? { queuePosition: 0, queueTotal: context.scheduler.total() };
  context.hub.publish('dd:update-operation-changed', {
    operationId: operation.id,
    containerName: operation.containerName,
    ...updateHostOf(operation),
    ...(operation.triggerName !== undefined && { triggerName: operation.triggerName }),
    status: operation.status,
    phase: operation.phase,
    queuePosition: queue.queuePosition,
    queueTotal: queue.queueTotal,
  });
}

export function viewOf(context: UpdateContext, operation: UpdateOperation) {
  return publicOperation(operation, context.scheduler.position(operation.id));
}
