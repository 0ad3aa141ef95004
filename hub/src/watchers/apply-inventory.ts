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
import type { CheckedSource, ContainerStore } from '../store/container-store';
import type { ObservedInventory } from './inventory-sync';
import { toPublicContainer } from './public-container';
import { sameJson } from './same-json';

export interface ApplyTargets {
  store: ContainerStore;
  publish: Publish;
  /** Appends entries as one batch, in order (AuditStore.appendMany). */
  audit: (records: readonly AuditRecord[]) => Promise<unknown>;
  /**
   * Stores the observation's records and their audit entries as one storage batch (the hub wires
   * writeTogether: one transaction on Workers). Without it: the records' batch, then the entries'.
   */
  write?: ((records: readonly Container[], entries: readonly AuditRecord[]) => Promise<void>) | undefined;
  /**
   * Told every record written, with what was stored before (notifications: update-available,
   * maturity-cleared, container-unhealthy). Awaited, but its failure never fails the observation.
   */
  notify?: ((changes: readonly AppliedChange[]) => Promise<void>) | undefined;
  /** Told the same changes after notify: the auto-update policy. Its failure never fails the observation. */
  autoUpdate?: ((changes: readonly AppliedChange[]) => Promise<void>) | undefined;
}

const BOOKKEEPING = new Set(['checkedAt', 'error']);

/** Equal but for the bookkeeping of the last check (its time, a repeated error's time): a change here is worth an event. */
function sameButBookkeeping(previous: Container, next: Container): boolean {
  return (
    sameJson(previous, next, BOOKKEEPING) &&
    sameJson(previous.error && { ...previous.error, at: undefined }, next.error && { ...next.error, at: undefined })
  );
}

function isNewUpdate(previous: Container | undefined, next: Container): boolean {
  if (!next.updateAvailable || next.updateKind.kind === 'unknown') return false;
  if (!previous?.updateAvailable || previous.updateKind.kind === 'unknown') return true;
  return previous.updateKind.remoteValue !== next.updateKind.remoteValue;
}

/** What the audit trail is told of one changed record: its addition, a new update, maturity cleared, health turned bad. */
function auditEntriesOf(previous: Container | undefined, record: Container): AuditRecord[] {
  const entries: AuditRecord[] = [];
  const containerName = record.name;
  const containerImage = imageOf(record);
  if (!previous) entries.push({ action: 'container-added', containerName, containerImage });
  if (isNewUpdate(previous, record) && record.updateKind.kind !== 'unknown') {
    entries.push({
      action: 'update-available',
      containerName,
      containerImage,
      fromVersion: record.updateKind.localValue,
      toVersion: record.updateKind.remoteValue,
      // The update's level (major … digest): the bell filters these entries by bellThreshold.
      details: updateLevel(record.updateKind),
    });
  }
  if (maturityClearedBetween(previous, record) && record.updateKind.kind !== 'unknown') {
    entries.push({
      action: 'maturity-cleared',
      containerName,
      containerImage,
      fromVersion: record.updateKind.localValue,
      toVersion: record.updateKind.remoteValue,
    });
  }
  if (healthTurnedBad(previous, record)) entries.push({ action: 'container-unhealthy', containerName, containerImage });
  return entries;
}

function announce(publish: Publish, previous: Container | undefined, record: Container): void {
  const shown = toPublicContainer(record);
  publish(previous ? 'dd:container-updated' : 'dd:container-added', shown);
  if (healthTurnedBad(previous, record)) {
    publish('dd:container-unhealthy', {
      containerName: record.name,
      health: 'unhealthy',
      previousHealth: previous?.health ?? null,
      container: shown,
    });
  }
}

/**
 * Writes an observation: changed records are stored and announced (http-interface §6.1), removed ones
 * deleted, and the audit trail told of additions, removals, new updates and health turning bad.
 * The records and their audit entries go to storage as one batch (`targets.write`; issues 16 and
 * 18): an edge agent's snapshot of N new containers is one storage transaction, not 2N writes each
 * with its fsync.
 */
export async function applyInventory(
  observed: ObservedInventory,
  targets: ApplyTargets,
  options: { fullCycleOf?: CheckedSource } = {},
): Promise<void> {
  const { store, publish, audit } = targets;
  const changes: AppliedChange[] = [];
  const writes: Container[] = [];
  const checked: Container[] = [];
  const entries: AuditRecord[] = [];
  const changed: { previous: Container | undefined; record: Container }[] = [];
  for (const record of observed.records) {
    const previous = store.get(record.id);
    changes.push({ previous, next: record });
    if (previous && sameButBookkeeping(previous, record)) {
      if (previous.error?.at !== record.error?.at) writes.push(record);
      else if (previous.checkedAt === record.checkedAt) continue;
      // Only its check time moved: a full cycle stores that once for its source (putChecked).
      else if (options.fullCycleOf && record.checkedAt === (checked[0] ?? record).checkedAt) checked.push(record);
      else writes.push(record);
      continue;
    }
    writes.push(record);
    entries.push(...auditEntriesOf(previous, record));
    changed.push({ previous, record });
  }
  // Stored and audited before announced: a client reacting to an event finds both.
  if (targets.write) await targets.write(writes, entries);
  else {
    await store.putMany(writes);
    await audit(entries);
  }
  if (options.fullCycleOf && checked.length > 0)
    await store.putChecked(options.fullCycleOf, checked[0]?.checkedAt as string, checked);
  for (const { previous, record } of changed) announce(publish, previous, record);
  const removed = observed.removedIds.flatMap((id) => store.get(id) ?? []);
  if (removed.length > 0) {
    // One write for them all: an agent's records share packs (container-packs.ts).
    await store.removeMany(removed.map((previous) => previous.id));
    await audit(
      removed.map((previous) => ({
        action: 'container-removed' as const,
        containerName: previous.name,
        containerImage: imageOf(previous),
      })),
    );
    for (const previous of removed) publish('dd:container-removed', toPublicContainer(previous));
  }
  if (targets.notify && changes.length > 0) await targets.notify(changes).catch(() => undefined);
  if (targets.autoUpdate && changes.length > 0) await targets.autoUpdate(changes).catch(() => undefined);
}
