import {
  compareNumbers,
  compareVersions,
  diffVersions,
  isPrereleaseAllowed,
  naturalCompare,
  type SemverDiff,
  sameFamily,
  suffixNumbers,
} from './compare';
import { isDigit, MAX_TAG_LENGTH, type ParsedVersion, parseVersionTag } from './parse';
import {
  applyTransform,
  type CompiledTagPolicy,
  NO_TAG_POLICY,
  type PolicyParts,
  passesFilters,
  policyParts,
} from './policy';

export interface TagCandidate {
  /** The tag as the registry lists it (before any transform). */
  tag: string;
  semverDiff: SemverDiff;
}

/**
 * Reads a tag as a version after the policy's transform; undefined for rolling tags (`latest`,
 * `stable-alpine`), identifiers (`sha-…`) and garbage. Never throws, whatever the input.
 */
export function readVersion(tag: string, policy?: CompiledTagPolicy): ParsedVersion | undefined {
  if (typeof tag !== 'string' || tag.length === 0 || tag.length > MAX_TAG_LENGTH) return undefined;
  const transform = policyParts(policy)?.transform;
  return parseVersionTag(transform === undefined ? tag : applyTransform(transform, tag));
}

/**
 * True when the tag parses as a version, so tag watching applies; false means digest-only watching.
 * Include and exclude do not enter into it: they narrow candidates, they do not judge the running tag.
 */
export function isVersionTag(tag: string, policy?: CompiledTagPolicy): boolean {
  return readVersion(tag, policy) !== undefined;
}

/** The level at which two tags differ (after transform); undefined when either is not a version or they are equal. */
export function semverDiff(fromTag: string, toTag: string, policy?: CompiledTagPolicy): SemverDiff | undefined {
  const from = readVersion(fromTag, policy);
  const to = readVersion(toTag, policy);
  return from === undefined || to === undefined ? undefined : diffVersions(from, to);
}

interface Ranked {
  readonly tag: string;
  readonly version: ParsedVersion;
}

/**
 * The highest tag of the current tag's family that is newer than it, not skipped, and passes
 * include/exclude. One linear pass: cheap checks first, the user's regexes only on survivors.
 */
export function findTagCandidate(
  currentTag: string,
  remoteTags: readonly string[],
  policy: CompiledTagPolicy,
  skipTags: readonly string[] = [],
): TagCandidate | undefined {
  const current = readVersion(currentTag, policy);
  // A missing policy (from untyped callers) means no policy rather than an exception.
  const parts = policyParts(policy) ?? policyParts(NO_TAG_POLICY)!;
  if (current === undefined || !Array.isArray(remoteTags)) return undefined;
  const context: ScanContext = { current, parts, shape: digitShape(currentTag) };
  const skipped = new Set(Array.isArray(skipTags) ? skipTags : []);
  let best: Ranked | undefined;
  for (const tag of remoteTags) {
    if (tag === currentTag || skipped.has(tag)) continue;
    const ranked = rankCandidate(tag, context);
    if (ranked !== undefined && (best === undefined || compareRanked(ranked, best, context) > 0)) best = ranked;
  }
  if (best === undefined) return undefined;
  // Never undefined here: the winner compares strictly greater than the current version.
  const diff = diffVersions(current, best.version) ?? 'patch';
  return { tag: best.tag, semverDiff: diff };
}

interface ScanContext {
  readonly current: ParsedVersion;
  readonly parts: PolicyParts;
  /** The current tag with every digit replaced by 0: its zero-padding pattern. */
  readonly shape: string;
}

function rankCandidate(tag: string, context: ScanContext): Ranked | undefined {
  if (typeof tag !== 'string' || tag.length > MAX_TAG_LENGTH) return undefined;
  const { current, parts } = context;
  const text = parts.transform === undefined ? tag : applyTransform(parts.transform, tag);
  // Most tags of a big repository belong to other families: reject on the prefix before parsing.
  if (!text.startsWith(current.prefix) || !isDigit(text.charCodeAt(current.prefix.length))) return undefined;
  const version = parseVersionTag(text);
  if (version === undefined || !sameFamily(current, version)) return undefined;
  if (!isPrereleaseAllowed(current, version) || compareVersions(version, current) <= 0) return undefined;
  if (!passesFilters(parts, tag)) return undefined;
  return { tag, version };
}

/**
 * Highest version first. Among equal versions: the current variant exactly (stay on alpine3.19 while
 * it is published), then the newest variant, then the current tag's zero-padding (`2024.07.0` over
 * `2024.7.0` for a `2024.06.0` user), then natural order of the tag, so ties are deterministic.
 */
function compareRanked(a: Ranked, b: Ranked, context: ScanContext): number {
  const byVersion = compareVersions(a.version, b.version);
  if (byVersion !== 0) return byVersion;
  const suffix = context.current.suffix;
  const bySuffix = Number(a.version.suffix === suffix) - Number(b.version.suffix === suffix);
  const byPadding = Number(digitShape(a.tag) === context.shape) - Number(digitShape(b.tag) === context.shape);
  const byVariant = compareNumbers(suffixNumbers(a.version), suffixNumbers(b.version));
  return bySuffix || byVariant || byPadding || naturalCompare(a.tag, b.tag);
}

function digitShape(tag: string): string {
  return tag.replace(/\d/g, '0');
}
