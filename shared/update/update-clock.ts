import * as v from 'valibot';

// One definition, beside the container contracts; re-exported for the update clock's many readers.
export { type ContainerIdentityInput, containerIdentity, LOCAL_AGENT } from '../containers/container-identity';

/** Per-identity record of the pending update's timing; stored, so validated when read back. */
export const UpdateClockSchema = v.object({
  /** The pending remote tag or digest this clock times. */
  remoteValue: v.pipe(v.string(), v.minLength(1)),
  /** Start of the maturity gate's own clock (http-interface §3.3), before any trusted publication date moves it earlier. */
  updateDetectedAt: v.pipe(v.number(), v.integer()),
  /** When this remote value was first seen, the display level's clock (http-interface §3.4). */
  firstSeenAt: v.pipe(v.number(), v.integer()),
});
export type UpdateClock = v.InferOutput<typeof UpdateClockSchema>;

/**
 * Advances the clock after one check of a container, keyed by containerIdentity.
 *
 * - Same remote value still pending: the clock is kept, whatever the container id, so re-creating a container
 *   neither restarts the gate nor makes an old update look new.
 * - New remote value: a new update, a new clock.
 * - Nothing pending (`remoteValue` undefined): no clock.
 *
 * A failed check is not "nothing pending": the caller keeps the previous clock and does not call this, or
 * a registry hiccup would restart every gate. The two instants start together and move together here;
 * they are two fields because http-interface §3.3 and §3.4 name two clocks, and a later source (a fleet-wide first
 * sighting) may move firstSeenAt alone.
 */
export function advanceUpdateClock(
  previous: UpdateClock | undefined,
  observed: { remoteValue: string | undefined },
  now: number,
): UpdateClock | undefined {
  const remoteValue = observed.remoteValue;
  if (!remoteValue) return undefined;
  if (previous?.remoteValue !== remoteValue) return { remoteValue, updateDetectedAt: now, firstSeenAt: now };
  // A stored instant after `now` means the host clock went back; clamp so the gate cannot be held longer.
  return {
    remoteValue,
    updateDetectedAt: Math.min(previous.updateDetectedAt, now),
    firstSeenAt: Math.min(previous.firstSeenAt, now),
  };
}
