import { imageOf } from '../../../shared/containers/container-record';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import type { Publish } from '../events/event-bus';
import {
  type AppliedChange,
  turnedUnhealthy as healthTurnedBad,
  maturityClearedBetween,
} from '../notifications/inventory-events';
import { updateLevel } from '../notifications/update-threshold';
import type { ContainerStore } from '../store/container-store';
import type { ObservedInventory } from './inventory-sync';
import { toPublicContainer } from './public-container';

export interface ApplyTargets {
  store: ContainerStore;
  publish: Publish;
  audit: (record: AuditRecord) => Promise<unknown>;
  /**
   * Told every record written, with what was stored before (notifications: update-available,
   * maturity-cleared, container-unhealthy). Awaited, but its failure never fails the observation.
   */
  notify?: ((changes: readonly AppliedChange[]) => Promise<void>) | undefined;
  /** Told the same changes after notify: the auto-update policy. Its failure never fails the observation. */
  autoUpdate?: ((changes: readonly AppliedChange[]) => Promise<void>) | undefined;
}

/** Everything but the bookkeeping of the last check (its time, a repeated error's time): a change here is worth an event. */
function comparable(container: Container): string {
  const { checkedAt: _checkedAt, error, ...rest } = container;
  return JSON.stringify({ ...rest, error: error && { ...error, at: undefined } });
}

function isNewUpdate(previous: Container | undefined, next: Container): boolean {
  if (!next.updateAvailable || next.updateKind.kind === 'unknown') return false;
  if (!previous?.updateAvailable || previous.updateKind.kind === 'unknown') return true;
  return previous.updateKind.remoteValue !== next.updateKind.remoteValue;
}

/**
 * Writes an observation: changed records are stored and announced (http-interface §6.1), removed ones
 * deleted, and the audit trail told of additions, removals, new updates and health turning bad.
 */
export async function applyInventory(observed: ObservedInventory, targets: ApplyTargets): Promise<void> {
  const { store, publish, audit } = targets;
  const changes: AppliedChange[] = [];
  for (const record of observed.records) {
    const previous = store.get(record.id);
    changes.push({ previous, next: record });
    if (previous && comparable(previous) === comparable(record)) {
      if (previous.checkedAt !== record.checkedAt || previous.error?.at !== record.error?.at) await store.put(record);
      continue;
    }
    // Stored and audited before it is announced: a client reacting to the event finds both.
    await store.put(record);
    const shown = toPublicContainer(record);
    if (!previous)
      await audit({ action: 'container-added', containerName: record.name, containerImage: imageOf(record) });
    if (isNewUpdate(previous, record) && record.updateKind.kind !== 'unknown') {
      await audit({
        action: 'update-available',
        containerName: record.name,
        containerImage: imageOf(record),
        fromVersion: record.updateKind.localValue,
        toVersion: record.updateKind.remoteValue,
        // The update's level (major … digest): the bell filters these entries by bellThreshold.
        details: updateLevel(record.updateKind),
      });
    }
    if (maturityClearedBetween(previous, record) && record.updateKind.kind !== 'unknown') {
      await audit({
        action: 'maturity-cleared',
        containerName: record.name,
        containerImage: imageOf(record),
        fromVersion: record.updateKind.localValue,
        toVersion: record.updateKind.remoteValue,
      });
    }
    const turnedUnhealthy = healthTurnedBad(previous, record);
    if (turnedUnhealthy)
      await audit({ action: 'container-unhealthy', containerName: record.name, containerImage: imageOf(record) });
    publish(previous ? 'dd:container-updated' : 'dd:container-added', shown);
    if (turnedUnhealthy) {
      publish('dd:container-unhealthy', {
        containerName: record.name,
        health: 'unhealthy',
        previousHealth: previous?.health ?? null,
        container: shown,
      });
    }
  }
  for (const id of observed.removedIds) {
    const previous = store.get(id);
    if (!previous) continue;
    await store.remove(id);
    await audit({ action: 'container-removed', containerName: previous.name, containerImage: imageOf(previous) });
    publish('dd:container-removed', toPublicContainer(previous));
  }
  if (targets.notify && changes.length > 0) await targets.notify(changes).catch(() => undefined);
  if (targets.autoUpdate && changes.length > 0) await targets.autoUpdate(changes).catch(() => undefined);
}
