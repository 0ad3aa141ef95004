import { SKIP_LIST_MAX, SNOOZE_MAX_DAYS, type UpdatePolicy, type UpdatePolicyAction } from '../schemas/update-policy';
import { DAY_MS, parseTimestamp, toIsoString } from './timestamp';
import type { PendingUpdate } from './update-kind';

export type PolicyActionErrorCode = 'no-update-detected' | 'snooze-not-in-future' | 'snooze-too-far';

/** A valid body that cannot apply to this container now; the route answers 400 with this message. */
export class PolicyActionError extends Error {
  override readonly name = 'PolicyActionError';
  readonly status = 400;
  readonly code: PolicyActionErrorCode;

  constructor(code: PolicyActionErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export type PolicyActionContext = {
  now: number;
  /** The update detected for the container right now; absent when none is pending. */
  currentUpdate?: PendingUpdate | undefined;
};

export type PolicyActionResult = { ok: true; policy: UpdatePolicy } | { ok: false; error: PolicyActionError };

type SkipListKey = 'skipTags' | 'skipDigests';

const skipListKey = (kind: PendingUpdate['kind']): SkipListKey => (kind === 'tag' ? 'skipTags' : 'skipDigests');

/**
 * A deep copy of the policy without the given fields, so the result shares no array with its input.
 * Absent rather than empty keeps stored records minimal.
 */
function copyPolicy(policy: UpdatePolicy, ...keys: (keyof UpdatePolicy)[]): UpdatePolicy {
  const copy: UpdatePolicy = { ...policy };
  if (copy.skipTags) copy.skipTags = [...copy.skipTags];
  if (copy.skipDigests) copy.skipDigests = [...copy.skipDigests];
  for (const key of keys) delete copy[key];
  return copy;
}

function withSkipList(policy: UpdatePolicy, key: SkipListKey, list: string[]): UpdatePolicy {
  return list.length === 0 ? copyPolicy(policy, key) : { ...copyPolicy(policy), [key]: list };
}

function addSkip(policy: UpdatePolicy, update: PendingUpdate): UpdatePolicy {
  const key = skipListKey(update.kind);
  const current = policy[key] ?? [];
  if (current.includes(update.remoteValue)) return copyPolicy(policy);
  // Lists keep insertion order, so the entries dropped past the cap are the oldest (see SKIP_LIST_MAX).
  return withSkipList(policy, key, [...current, update.remoteValue].slice(-SKIP_LIST_MAX));
}

function snoozeEnd(action: Extract<UpdatePolicyAction, { action: 'snooze' }>, now: number): number | PolicyActionError {
  if (action.days !== undefined) return now + action.days * DAY_MS;
  const until = parseTimestamp(action.snoozeUntil);
  if (until === undefined || until <= now) {
    return new PolicyActionError(
      'snooze-not-in-future',
      `snooze: snoozeUntil must be in the future (now is ${toIsoString(now)})`,
    );
  }
  if (until > now + SNOOZE_MAX_DAYS * DAY_MS) {
    return new PolicyActionError('snooze-too-far', `snooze: snoozeUntil must be within ${SNOOZE_MAX_DAYS} days`);
  }
  return until;
}

/**
 * Applies one PATCH action (http-interface §4.8) to a container's policy, already validated by UpdatePolicyActionSchema.
 * Returns a new policy and never changes the given one. Removing what is not there (remove-skip of an absent
 * value, unsnooze when not snoozed) succeeds: the caller asked for a state, and the state holds.
 */
export function applyPolicyAction(
  policy: UpdatePolicy,
  action: UpdatePolicyAction,
  context: PolicyActionContext,
): PolicyActionResult {
  switch (action.action) {
    case 'skip-current': {
      if (!context.currentUpdate) {
        return {
          ok: false,
          error: new PolicyActionError('no-update-detected', 'skip-current: no update is detected for this container'),
        };
      }
      return { ok: true, policy: addSkip(policy, context.currentUpdate) };
    }
    case 'remove-skip': {
      const key = skipListKey(action.kind);
      const remaining = (policy[key] ?? []).filter((entry) => entry !== action.value);
      return { ok: true, policy: withSkipList(policy, key, remaining) };
    }
    case 'clear-skips':
      return { ok: true, policy: copyPolicy(policy, 'skipTags', 'skipDigests') };
    case 'snooze': {
      const until = snoozeEnd(action, context.now);
      if (until instanceof PolicyActionError) return { ok: false, error: until };
      return { ok: true, policy: { ...copyPolicy(policy), snoozeUntil: toIsoString(until) } };
    }
    case 'unsnooze':
      return { ok: true, policy: copyPolicy(policy, 'snoozeUntil') };
    case 'clear':
      return { ok: true, policy: {} };
    case 'set-maturity-policy':
      // With mode `all` there is no gate, so a minimum age would be a dead value in the record.
      if (action.mode === 'all')
        return { ok: true, policy: { ...copyPolicy(policy, 'maturityMinAgeDays'), maturityMode: 'all' } };
      return {
        ok: true,
        policy: { ...copyPolicy(policy), maturityMode: 'mature', maturityMinAgeDays: action.minAgeDays },
      };
    case 'clear-maturity-policy':
      return { ok: true, policy: copyPolicy(policy, 'maturityMode', 'maturityMinAgeDays') };
  }
}
