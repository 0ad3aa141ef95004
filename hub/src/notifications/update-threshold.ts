import type { UpdateKind } from '../../../shared/update/update-kind';

/**
 * `THRESHOLD` of a notification trigger, and `bellThreshold` of a rule (its first four values).
 *
 * Every pending update has a level, from the largest change to the smallest:
 *   major > minor > patch (a prerelease step counts as patch) > digest (same tag, rebuilt image).
 * A tag change between tags that are not versions (`latest` → `stable`) has no known size and
 * counts as major: a filter that asks for small changes should not let an unknown one through.
 *
 * - `all`: every update.
 * - `major`, `minor`, `patch`: updates of that level or smaller (`minor` = minor, patch, digest).
 * - `digest`: digest updates only (nothing is smaller), the same as `digest-only`.
 * - `major-only`, `minor-only`, `patch-only`: exactly that level (`major-only` excludes the
 *   unknown-size tag changes), `digest-only`: digest updates only.
 *
 * An event with no pending update (an agent, a health change, a failed update) passes every threshold.
 */
export const UPDATE_THRESHOLDS = [
  'all',
  'major',
  'minor',
  'patch',
  'digest',
  'major-only',
  'minor-only',
  'patch-only',
  'digest-only',
] as const;
export type UpdateThreshold = (typeof UPDATE_THRESHOLDS)[number];

export type UpdateLevel = 'major' | 'minor' | 'patch' | 'digest' | 'tag';

const RANK: Readonly<Record<UpdateLevel, number>> = { tag: 4, major: 4, minor: 3, patch: 2, digest: 1 };

/** The level of a pending update; undefined when nothing is pending. */
export function updateLevel(updateKind: UpdateKind): UpdateLevel | undefined {
  if (updateKind.kind === 'unknown') return undefined;
  if (updateKind.kind === 'digest') return 'digest';
  const diff = updateKind.semverDiff;
  if (diff === undefined) return 'tag';
  return diff === 'prerelease' ? 'patch' : diff;
}

export function thresholdAllows(threshold: UpdateThreshold, level: UpdateLevel | undefined): boolean {
  if (level === undefined || threshold === 'all') return true;
  if (threshold === 'digest' || threshold === 'digest-only') return level === 'digest';
  if (threshold.endsWith('-only')) return level === threshold.slice(0, -'-only'.length);
  return RANK[level] <= RANK[threshold as 'major' | 'minor' | 'patch'];
}

/**
 * `bellThreshold` of a rule (http-interface §2.8: all, major, minor, patch) is a minimum, the way a bell
 * cuts noise: `major` shows major updates only, `minor` major and minor, `patch` every version
 * change; digest updates show under `all` only. (THRESHOLD above keeps the ancestor's meaning,
 * "up to this level", so existing trigger configurations behave as they always did.)
 */
export function bellThresholdAllows(
  threshold: 'all' | 'major' | 'minor' | 'patch',
  level: UpdateLevel | undefined,
): boolean {
  if (level === undefined || threshold === 'all') return true;
  return RANK[level] >= RANK[threshold];
}
