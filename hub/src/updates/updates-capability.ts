import type { AgentRegistry } from '../agents/agent-registry';
import type { ApprovalService } from '../approvals/approval-service';
import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { NotificationService } from '../notifications/notification-service';
import type { RegistryAccess } from '../registries/registries-capability';
import type { SecurityService } from '../security/security-service';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import type { Fleet } from '../watchers/fleet';
import { createSelfUpdates, type SelfUpdates } from './self-update/self-update-service';
import { createUpdateService, type UpdateService } from './update-service';

export interface UpdateParts {
  updates: UpdateService;
  /** The hub's own container swapped by a helper; undefined where it runs in none, or its runtime cannot start the helper (Workers). */
  selfUpdates: SelfUpdates | undefined;
  /** The action triggers (DD_ACTION_*): one array a configuration reload replaces in place. */
  actionTriggers: HubFoundation['config']['actions'];
}

export type UpdatesCapabilityDeps = Pick<
  HubFoundation,
  'input' | 'config' | 'storage' | 'logger' | 'now' | 'publish' | 'connectedClients'
> & {
  audit: AuditStore;
  containers: ContainerStore;
  settings: SettingsStore;
  notifications: NotificationService;
  registries: RegistryAccess | undefined;
  fleet: Fleet;
  agentRegistry: AgentRegistry;
  approvals: ApprovalService;
  security: SecurityService;
};

/**
 * Container updates and the hub's own (docs/updates.md). They drain first among what they need
 * (the update queue closes, running updates settle) and resume what a previous run left.
 */
export function updatesCapability(deps: UpdatesCapabilityDeps): Capability<UpdateParts> {
  const { input, config, storage, logger, now, publish, audit } = deps;
  // The hub's own container, where it runs in one and its runtime can start the helper (docs/updates.md "Self-update").
  const selfUpdates =
    input.selfUpdateHelper &&
    createSelfUpdates({
      storage,
      logger,
      now,
      publish,
      clients: deps.connectedClients,
      audit,
      helperCommand: input.selfUpdateHelper,
      selfContainerId: input.selfContainerId,
      ackTimeoutMs: input.updates?.selfUpdateAckTimeoutMs,
    });
  const actionTriggers = [...config.actions];
  const updates = createUpdateService(
    {
      now,
      publish,
      fleet: deps.fleet,
      agentDescriptions: deps.agentRegistry,
      containers: deps.containers,
      audit,
      settings: deps.settings,
      notifications: deps.notifications,
      registries: deps.registries,
      config,
      selfContainerId: input.selfContainerId,
      hookRunner: input.hookRunner,
      runtime: input.runtime,
      composeFiles: input.composeFiles,
      approvals: deps.approvals,
      security: deps.security.gate,
      selfUpdates,
    },
    { storage, logger, triggers: actionTriggers, options: input.updates },
  );
  return {
    parts: { updates, selfUpdates, actionTriggers },
    load: () => updates.load(),
    async resume() {
      // Unfinished updates are settled on the watchers' hosts (in the background: Docker may be slow to answer).
      await updates.start();
      await selfUpdates?.load();
    },
    async drain(limits) {
      selfUpdates?.stop();
      await updates.drain(limits);
    },
    async stop() {
      await updates.stop();
      await selfUpdates?.idle();
    },
  };
}
