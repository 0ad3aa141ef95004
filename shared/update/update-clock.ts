import * as v from 'valibot';

/** The agent name of containers on the hub's own Docker host (decisions §1). */
export const LOCAL_AGENT = '__local__';

export type ContainerIdentityInput = { agent?: string | undefined; watcher: string; name: string };

/**
 * The key that survives re-creation: an update gives the container a new id but keeps agent, watcher and
 * name, so policy and update clock are stored under this key, never under the id. Same form as
 * statusesByIdentity in recent-status (http-interface §4.8): `agent::watcher::name`, with `__local__` for a local
 * container so that a missing and an empty agent name read alike. Docker container names and watcher names
 * cannot hold `:`, so the separator is unambiguous.
 */
export function containerIdentity(input: ContainerIdentityInput): string {
  const agent = input.agent ? input.agent : LOCAL_AGENT;
  // The Docker API lists names as `/name`; the same container must not get two keys.
  const name = input.name.startsWith('/') ? input.name.slice(1) : input.name;
  return `${agent}::${input.watcher}::${name}`;
}

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
