/**
 * Tag intelligence: is a tag a version, and which newer tag of the same family exists.
 * Pure and Web-standard (runs on Node and workerd). Rules and decisions: docs/tag-corpus.md.
 */
export { findTagCandidate, isVersionTag, readVersion, semverDiff, type TagCandidate } from './candidate';
export { compareVersions, familyKey, type SemverDiff } from './compare';
export { MAX_TAG_LENGTH, type Magnitude, type ParsedVersion, parseVersionTag } from './parse';
export {
  type CompiledTagPolicy,
  MAX_USER_REGEX_LENGTH,
  NO_TAG_POLICY,
  type TagPolicy,
  TagPolicyError,
  type TagPolicyField,
} from './policy';
export { compileTagPolicy } from './policy-compile';
export type { BuildCounter, Prerelease } from './tail';
