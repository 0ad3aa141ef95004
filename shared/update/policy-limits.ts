/**
 * The update policy's limits (http-interface §2.5, §8), apart from their valibot schemas so the UI
 * checks a field against the very numbers the API enforces without bundling valibot.
 */

/** The maturity gate's minimum age is 1 to 365 days, 7 when not given. */
export const MATURITY_MIN_AGE_DAYS_DEFAULT = 7;
export const MATURITY_MIN_AGE_DAYS_MAX = 365;

/** Longest snooze, whichever way it is given: ten years. Longer is "stop watching", not a snooze. */
export const SNOOZE_MAX_DAYS = 3650;

/**
 * Why a typed number of days is refused, in words, or undefined when it is a whole number from 1 to
 * `max` (what the API's schema takes: an integer, at least 1).
 */
export function daysProblem(text: string, max: number): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return 'Enter a number of days.';
  const days = Number(trimmed);
  if (!Number.isFinite(days)) return 'Enter a number of days, in digits.';
  if (!Number.isInteger(days)) return `Enter whole days: ${trimmed} is not a whole number.`;
  if (days < 1) return 'Enter at least 1 day.';
  if (days > max) return `Enter at most ${max.toLocaleString('en')} days.`;
  return undefined;
}
