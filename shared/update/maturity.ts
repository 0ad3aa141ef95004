import { MATURITY_MIN_AGE_DAYS_DEFAULT, type UpdatePolicy } from '../schemas/update-policy';
import { DAY_MS, parseTimestamp, toIsoString } from './timestamp';

/** http-interface §3.4 and §8: display threshold default, and the age past which an update is `established`. */
export const DISPLAY_THRESHOLD_DAYS_DEFAULT = 7;
export const ESTABLISHED_AFTER_DAYS = 30;

export type MaturityGateInput = {
  policy: Pick<UpdatePolicy, 'maturityMode' | 'maturityMinAgeDays'>;
  /** When this container's pending update was first detected (the update clock, carried across re-creation). */
  updateDetectedAt: number;
  /** result.publishedAt of the candidate. */
  publishedAt?: string | undefined;
  /** result.publishedAtTrusted: only a registry push date counts; an image's own `created` can be anything. */
  publishedAtTrusted?: boolean | undefined;
  now: number;
};

/**
 * The gate of one pending update (http-interface §3.3). `liftableAt` is present exactly when the gate is enabled
 * (mode `mature`): in the future while held, in the past once applicable. Its absence on an applicable
 * gate tells "no gate" apart from "aged out", which maturityCleared relies on.
 */
export type MaturityGate = { state: 'held' | 'applicable'; clockStartedAt: number; liftableAt?: number };

export type MaturityBlocker = { reason: 'maturity-not-reached'; liftableAt: string };

/** A date counts when it parses and is not after `now` (a future date is a wrong clock or a wrong field). */
function pastTimestamp(value: string | undefined, now: number): number | undefined {
  const ms = parseTimestamp(value);
  return ms !== undefined && ms <= now ? ms : undefined;
}

/** Where the gate clock starts: the earlier of a usable trusted publication date and updateDetectedAt. */
export function gateClockStart(input: Omit<MaturityGateInput, 'policy'>): number {
  const published = input.publishedAtTrusted === true ? pastTimestamp(input.publishedAt, input.now) : undefined;
  return published === undefined ? input.updateDetectedAt : Math.min(published, input.updateDetectedAt);
}

/** Evaluates the age gate; with maturityMode absent or `all` there is no gate and the update is applicable. */
export function evaluateMaturityGate(input: MaturityGateInput): MaturityGate {
  const clockStartedAt = gateClockStart(input);
  if (input.policy.maturityMode !== 'mature') return { state: 'applicable', clockStartedAt };
  const minAgeDays = input.policy.maturityMinAgeDays ?? MATURITY_MIN_AGE_DAYS_DEFAULT;
  const liftableAt = clockStartedAt + minAgeDays * DAY_MS;
  // "Reaches" the minimum age: exactly minAgeDays old is old enough.
  return { state: input.now >= liftableAt ? 'applicable' : 'held', clockStartedAt, liftableAt };
}

/** What an update request (manual or automatic) gets while the gate holds; undefined when it does not. */
export function maturityBlocker(gate: MaturityGate): MaturityBlocker | undefined {
  if (gate.state !== 'held' || gate.liftableAt === undefined) return undefined;
  return { reason: 'maturity-not-reached', liftableAt: toIsoString(gate.liftableAt) };
}

/**
 * True exactly when the gate moved from held to applicable by ageing, so the maturity-cleared event and rule
 * fire once: the next evaluation is applicable again and does not fire. Switching the gate off is not a
 * clearance. Pass the previous evaluation of the same pending update (same remote value); when the update
 * changed, pass undefined, since the old update never matured.
 */
export function maturityCleared(previous: MaturityGate | undefined, current: MaturityGate | undefined): boolean {
  return previous?.state === 'held' && current?.state === 'applicable' && current.liftableAt !== undefined;
}

export type DisplayLevelInput = {
  /** When this remote value was first seen (the update clock). */
  firstSeenAt: number;
  /** result.publishedAt, trusted or not: the level is informational (http-interface §3.4). */
  publishedAt?: string | undefined;
  now: number;
  /** DD_UI_MATURITY_THRESHOLD_DAYS, an integer above 0; anything else falls back to the default 7. */
  thresholdDays?: number | undefined;
  /** True while the gate holds the update: no level shows then. */
  gateHeld: boolean;
};

export type DisplayMaturityLevel = 'hot' | 'mature' | 'established';

/**
 * The display level of http-interface §3.4. With a threshold above 30 days the `mature` band is empty: an update is
 * hot until the threshold, then established.
 */
export function displayMaturityLevel(input: DisplayLevelInput): DisplayMaturityLevel | undefined {
  if (input.gateHeld) return undefined;
  const threshold =
    input.thresholdDays !== undefined && Number.isInteger(input.thresholdDays) && input.thresholdDays > 0
      ? input.thresholdDays
      : DISPLAY_THRESHOLD_DAYS_DEFAULT;
  const published = pastTimestamp(input.publishedAt, input.now);
  const since = published === undefined ? input.firstSeenAt : Math.min(published, input.firstSeenAt);
  const age = input.now - since;
  if (age < threshold * DAY_MS) return 'hot';
  return age > ESTABLISHED_AFTER_DAYS * DAY_MS ? 'established' : 'mature';
}
