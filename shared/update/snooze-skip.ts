import type { UpdatePolicy } from '../schemas/update-policy';
import { type MaturityGate, maturityBlocker } from './maturity';
import { parseTimestamp, toIsoString } from './timestamp';
import type { PendingUpdate } from './update-kind';

/** Why a pending update is not acted on; `liftableAt` (ISO 8601) says when the reason lapses by itself. */
export type UpdateBlocker =
  | { reason: 'skipped' }
  | { reason: 'snoozed'; liftableAt: string }
  | { reason: 'maturity-not-reached'; liftableAt: string };

/**
 * True until snoozeUntil: the snooze ends at that instant, not after it. An unreadable date does not snooze,
 * because a bad stored value must not silence notifications forever.
 */
export function isSnoozed(policy: Pick<UpdatePolicy, 'snoozeUntil'>, now: number): boolean {
  const until = parseTimestamp(policy.snoozeUntil);
  return until !== undefined && now < until;
}

/** A tag update is matched against skipTags, a digest update against skipDigests, by exact value. */
export function isSkipped(policy: Pick<UpdatePolicy, 'skipTags' | 'skipDigests'>, update: PendingUpdate): boolean {
  const list = update.kind === 'tag' ? policy.skipTags : policy.skipDigests;
  return list?.includes(update.remoteValue) ?? false;
}

export type UpdateBlockersInput = {
  policy: UpdatePolicy;
  /** The pending update; undefined when there is none, and then nothing is blocked. */
  update: PendingUpdate | undefined;
  /** The maturity gate of that update, from evaluateMaturityGate. */
  gate: MaturityGate | undefined;
  now: number;
};

/**
 * Every reason that holds a pending update back from notifications and automatic updates, in a fixed order
 * (skipped, snoozed, maturity-not-reached); empty when it may go ahead. A manual update request looks only at
 * the maturity gate (http-interface §3.3): skips and snoozes are about what the user is told, not what they may do.
 */
export function updateBlockers(input: UpdateBlockersInput): UpdateBlocker[] {
  if (!input.update) return [];
  const blockers: UpdateBlocker[] = [];
  if (isSkipped(input.policy, input.update)) blockers.push({ reason: 'skipped' });
  const until = parseTimestamp(input.policy.snoozeUntil);
  if (until !== undefined && input.now < until) blockers.push({ reason: 'snoozed', liftableAt: toIsoString(until) });
  const maturity = input.gate ? maturityBlocker(input.gate) : undefined;
  if (maturity) blockers.push(maturity);
  return blockers;
}
