import type { Storage } from 'unstorage';
import * as v from 'valibot';
import { imageOf } from '../../../shared/containers/container-record';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import { HttpError } from '../http/http-error';
import type { AppliedChange } from '../notifications/inventory-events';
import type { AutoUpdatePolicy } from '../policies/effective-group-policy';
import type { RolloutService } from '../rollouts/rollout-service';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import { createSerialQueue, readValidated } from '../store/validated-storage';
import { autoUpdateDecision } from './auto-update-policy';
import type { UpdateService } from './update-service';
import { updateTargetOf } from './update-target';

const AUDITED_KEY = 'auto-update:blocked-audited';
/** Container identity → the target whose block was audited (once per container and target). */
const AuditedSchema = v.record(v.string(), v.string());

/** Refusals of requestUpdate that only mean "an update is already under way": nothing to report. */
const BUSY_REASONS = new Set(['queued', 'in-progress']);
/** Refusals of requestUpdate that carry no details.reason, named for the audit entry. */
const STATUS_REASONS: Readonly<Record<number, string>> = {
  403: 'container-actions-disabled',
  503: 'watcher-unavailable',
};

/**
 * Automatic updates (docs/updates.md): after each applied observation, every container checked in
 * it with a pending update is put to the auto-update policy; when every gate allows, the update is
 * queued with source `auto` through the same requestUpdate as the API. A blocked one is audited
 * `auto-update-blocked` once per (container, target), remembered across restarts.
 */
export interface AutoUpdater {
  load(): Promise<void>;
  /** The sibling of notifications.inventoryApplied; its failures are logged, never thrown. */
  inventoryApplied(changes: readonly AppliedChange[]): Promise<void>;
}

const targetKey = (container: Container) => {
  const target = updateTargetOf(container);
  return target ? `${target.targetImage}@${target.toVersion}` : undefined;
};

/** The automatic-update policy: what it reads to decide, and the update service it queues through. */
export interface AutoUpdaterDeps {
  storage: Storage;
  logger: Logger;
  audit: Pick<AuditStore, 'append'>;
  containers: Pick<ContainerStore, 'get'>;
  settings: Pick<SettingsStore, 'get'>;
  updates: Pick<UpdateService, 'operationsOf' | 'requestUpdate' | 'triggers'>;
  /** The container's group or agent policy (docs/group-policies.md): its mode, windows and maturity gate. */
  policyOf?: ((container: Container) => AutoUpdatePolicy) | undefined;
  /** Staged rollouts: a container whose policy rolls out automatically is handed over instead of updated. */
  rollouts?: Pick<RolloutService, 'rollsOutAutomatically' | 'startAutomatic'> | undefined;
}

export function createAutoUpdater(deps: AutoUpdaterDeps): AutoUpdater {
  const logger = deps.logger.child('updates.auto');
  const serial = createSerialQueue();
  let audited: Record<string, string> = {};

  /** An automatic attempt at this target already ended badly: it is not tried again by itself. */
  function failedBefore(container: Container, target: string): boolean {
    return deps.updates
      .operationsOf(container)
      .some(
        (operation) =>
          operation.kind === 'update' &&
          operation.source === 'auto' &&
          (operation.status === 'rolled-back' || operation.status === 'failed') &&
          `${operation.targetImage}@${operation.toVersion}` === target,
      );
  }

  async function remember(identity: string, target: string | undefined): Promise<void> {
    const next = { ...audited };
    if (target === undefined) delete next[identity];
    else next[identity] = target;
    if (JSON.stringify(next) === JSON.stringify(audited)) return;
    await deps.storage.setItem(AUDITED_KEY, next);
    audited = next;
  }

  async function block(container: Container, target: string, reason: string, liftableAt?: string): Promise<void> {
    const identity = containerIdentity(container);
    if (audited[identity] === target) return;
    const update = updateTargetOf(container);
    await deps.audit.append({
      action: 'auto-update-blocked',
      containerName: container.name,
      containerImage: imageOf(container),
      ...(update && { fromVersion: update.fromVersion, toVersion: update.toVersion }),
      status: reason,
      details: liftableAt === undefined ? reason : `${reason} until ${liftableAt}`,
    });
    await remember(identity, target);
    logger.info('an automatic update is blocked', { container: container.name, reason });
  }

  /**
   * What the policy does for this container now; undefined when nothing (no update, or the mode is
   * off), which is what a watch cycle finds for most containers: passed over without a promise each.
   */
  function consider(container: Container): Promise<void> | undefined {
    const target = targetKey(container);
    if (target === undefined) return undefined;
    const policy = deps.policyOf?.(container) ?? {};
    const decision = autoUpdateDecision({
      mode: policy.mode ?? deps.settings.get().updateMode,
      container,
      triggers: deps.updates.triggers,
      failedBefore: () => failedBefore(container, target),
    });
    if (decision.kind === 'off') return undefined;
    return act(container, target, policy, decision);
  }

  async function act(
    container: Container,
    target: string,
    policy: AutoUpdatePolicy,
    decision: Exclude<ReturnType<typeof autoUpdateDecision>, { kind: 'off' }>,
  ): Promise<void> {
    if (decision.kind === 'blocked') {
      await block(container, target, decision.reason, decision.liftableAt);
      return;
    }
    if (policy.insideWindow === false) return block(container, target, 'outside-schedule-window');
    if (policy.immatureUntil !== undefined)
      return block(container, target, 'maturity-not-reached', policy.immatureUntil);
    if (deps.rollouts?.rollsOutAutomatically(container)) {
      // The rollout updates it (and the same image elsewhere) host by host; once per candidate.
      await deps.rollouts.startAutomatic(container);
      await remember(containerIdentity(container), undefined);
      return;
    }
    try {
      const operation = await deps.updates.requestUpdate(container.id, {
        source: 'auto',
        triggerName: decision.trigger.id,
      });
      logger.info('automatic update queued', { container: container.name, operationId: operation.id, target });
      await remember(containerIdentity(container), undefined);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const named = error.details?.['reason'];
      const reason = typeof named === 'string' ? named : (STATUS_REASONS[error.status] ?? `http-${error.status}`);
      if (BUSY_REASONS.has(reason)) return;
      const liftableAt = error.details?.['liftableAt'];
      await block(container, target, reason, typeof liftableAt === 'string' ? liftableAt : undefined);
    }
  }

  return {
    async load() {
      audited = (await readValidated(deps.storage, AUDITED_KEY, AuditedSchema, logger)) ?? {};
    },
    inventoryApplied: (changes) =>
      serial(async () => {
        for (const { previous, next } of changes) {
          // Only what this observation checked against its registry: a detection, not a mere refresh.
          if (next.checkedAt === undefined || next.checkedAt === previous?.checkedAt) continue;
          try {
            const pending = consider(deps.containers.get(next.id) ?? next);
            if (pending) await pending;
          } catch (error) {
            logger.warn('the auto-update policy failed for a container', {
              container: next.name,
              error: errorMessage(error),
            });
          }
        }
      }),
  };
}
