import type { Container } from '../../../shared/schemas/container';

/** One record written by applyInventory, with what was stored before it. */
export interface AppliedChange {
  previous: Container | undefined;
  next: Container;
}

export interface InventoryEvents {
  /** Checked in this observation, an update pending, and nothing holding it back. */
  updateAvailable: Container[];
  /** The maturity gate of a pending update lifted by ageing in this observation (http-interface §3.3). */
  maturityCleared: Container[];
  /** Health turned unhealthy (the moment of `dd:container-unhealthy`). */
  unhealthy: Container[];
}

const remoteOf = (container: Container | undefined) =>
  container && container.updateKind.kind !== 'unknown' ? container.updateKind.remoteValue : undefined;

const held = (container: Container | undefined) =>
  container?.blockers?.some((b) => b.reason === 'maturity-not-reached') ?? false;

/** Skips and snoozes are about what the user is told (http-interface §2.5): such an update is not announced. */
const silenced = (container: Container) =>
  container.blockers?.some((b) => b.reason === 'skipped' || b.reason === 'snoozed') ?? false;

/**
 * True when the gate held this very update at the previous check and no longer does, by ageing:
 * switching the gate off (maturityMode no longer `mature`) is not a clearance, and a new remote
 * value is a new update that never matured.
 */
export function maturityClearedBetween(previous: Container | undefined, next: Container): boolean {
  return (
    next.updateAvailable &&
    next.updatePolicy.maturityMode === 'mature' &&
    held(previous) &&
    !held(next) &&
    remoteOf(previous) !== undefined &&
    remoteOf(previous) === remoteOf(next)
  );
}

export function turnedUnhealthy(previous: Container | undefined, next: Container): boolean {
  return next.health === 'unhealthy' && previous !== undefined && previous.health !== 'unhealthy';
}

/**
 * What one applied observation means for notifications. update-available is every container
 * checked now with a pending update that is neither skipped, snoozed nor held by its maturity
 * gate; whether it is new to a trigger is that trigger's ONCE memory (so a snooze that ends, or a
 * hub that was down, still announces the update once). A gated update is announced when the gate
 * lifts, as maturity-cleared (or as update-available when that rule is disabled).
 */
export function inventoryEvents(changes: readonly AppliedChange[]): InventoryEvents {
  const events: InventoryEvents = { updateAvailable: [], maturityCleared: [], unhealthy: [] };
  for (const { previous, next } of changes) {
    if (turnedUnhealthy(previous, next)) events.unhealthy.push(next);
    const checked = next.checkedAt !== undefined && next.checkedAt !== previous?.checkedAt;
    if (!checked || !next.updateAvailable || next.updateKind.kind === 'unknown' || silenced(next)) continue;
    if (maturityClearedBetween(previous, next)) events.maturityCleared.push(next);
    else if (!held(next)) events.updateAvailable.push(next);
  }
  return events;
}
