import * as v from 'valibot';
import { MATURITY_MIN_AGE_DAYS_DEFAULT, MATURITY_MIN_AGE_DAYS_MAX, SNOOZE_MAX_DAYS } from '../update/policy-limits';
import { parseTimestamp } from '../update/timestamp';

export const MATURITY_MODES = ['all', 'mature'] as const;
export type MaturityMode = (typeof MATURITY_MODES)[number];

export { MATURITY_MIN_AGE_DAYS_DEFAULT, SNOOZE_MAX_DAYS } from '../update/policy-limits';

/**
 * Each skip list holds at most this many entries. A rolling tag gets a new digest every build, so a user who
 * skips each one would fill the list; skip-current then drops the oldest entry, long superseded by newer ones.
 */
export const SKIP_LIST_MAX = 100;

/** A tag is at most 128 characters and a digest `<algorithm>:<hex>` stays well under 256. */
const SkipValueSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(256));

const MinAgeDaysSchema = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MATURITY_MIN_AGE_DAYS_MAX));

/** An ISO 8601 date, or a date and time with its zone; the same reading the policy logic applies. */
const TimestampStringSchema = v.pipe(
  v.string(),
  v.check(
    (value) => parseTimestamp(value) !== undefined,
    'must be an ISO 8601 date, or date and time with a time zone, after 1970',
  ),
);

/** The update-policy fields of a container (http-interface §2.5). Absent fields mean "no skip", "not snoozed", "no gate". */
export const UpdatePolicySchema = v.object({
  skipTags: v.optional(v.pipe(v.array(SkipValueSchema), v.maxLength(SKIP_LIST_MAX))),
  skipDigests: v.optional(v.pipe(v.array(SkipValueSchema), v.maxLength(SKIP_LIST_MAX))),
  snoozeUntil: v.optional(TimestampStringSchema),
  maturityMode: v.optional(v.picklist(MATURITY_MODES)),
  maturityMinAgeDays: v.optional(MinAgeDaysSchema),
});
export type UpdatePolicy = v.InferOutput<typeof UpdatePolicySchema>;

const bare = <const TAction extends string>(action: TAction) => v.strictObject({ action: v.literal(action) });

/**
 * PATCH /api/v1/containers/{id}/update-policy bodies (http-interface §4.8). Unknown fields are refused so a typo
 * (`day` for `days`) is not silently lost. Whether a snooze date lies in the future needs a clock, so
 * applyPolicyAction checks it, not this schema.
 */
export const UpdatePolicyActionSchema = v.pipe(
  v.variant('action', [
    bare('skip-current'),
    v.strictObject({ action: v.literal('remove-skip'), kind: v.picklist(['tag', 'digest']), value: SkipValueSchema }),
    bare('clear-skips'),
    v.strictObject({
      action: v.literal('snooze'),
      days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(SNOOZE_MAX_DAYS))),
      snoozeUntil: v.optional(TimestampStringSchema),
    }),
    bare('unsnooze'),
    bare('clear'),
    v.strictObject({
      action: v.literal('set-maturity-policy'),
      mode: v.picklist(MATURITY_MODES),
      minAgeDays: v.optional(MinAgeDaysSchema, MATURITY_MIN_AGE_DAYS_DEFAULT),
    }),
    bare('clear-maturity-policy'),
  ]),
  // A variant option cannot carry its own pipe, so the one cross-field rule sits on the union.
  v.check(
    (body) => body.action !== 'snooze' || (body.days === undefined) !== (body.snoozeUntil === undefined),
    'snooze needs exactly one of days or snoozeUntil',
  ),
);
export type UpdatePolicyAction = v.InferOutput<typeof UpdatePolicyActionSchema>;
export type UpdatePolicyActionName = UpdatePolicyAction['action'];
