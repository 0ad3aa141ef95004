import type { SemverDiff, TagPolicy } from '../../shared/tags';

/** What a case exercises; docs/tag-corpus.md counts cases per category. */
export type TagCaseCategory =
  | 'semver' // plain numeric moves inside one family
  | 'floating' // one- or two-part tags (`16`, `16-alpine`, `3.12-slim`)
  | 'variant' // suffix families (`-alpine3.20`, `-fpm-alpine`, `-management`, `-rootless`)
  | 'prerelease' // rc/beta/alpha/nightly: leaks and legitimate moves
  | 'calver' // year-based and date-stamped versions
  | 'build' // build counters and hashes: `-ls123`, `-r1`, `p13`, plex's `-c0dd5a73e`
  | 'rolling' // a current tag that is not a version (`latest`, `stable-alpine`): digest only
  | 'policy' // includeTags, excludeTags, transformTags, skipTags
  | 'regression'; // the shape of a bug users reported against update monitors

export interface ExpectedCandidate {
  tag: string;
  semverDiff: SemverDiff;
}

export interface TagCase {
  /** `<image>/<name>`, unique. */
  id: string;
  image: string;
  category: TagCaseCategory;
  current: string;
  remoteTags: readonly string[];
  policy?: TagPolicy;
  skipTags?: readonly string[];
  expected: ExpectedCandidate | null;
  why: string;
}

export const to = (tag: string, semverDiff: SemverDiff): ExpectedCandidate => ({ tag, semverDiff });

interface CaseOptions {
  policy?: TagPolicy;
  skipTags?: readonly string[];
  /** Another snapshot of the repository (e.g. before a release) instead of the image's default list. */
  remoteTags?: readonly string[];
}

type CaseBuilder = (
  name: string,
  category: TagCaseCategory,
  current: string,
  expected: ExpectedCandidate | null,
  why: string,
  options?: CaseOptions,
) => TagCase;

/** Binds an image and its tag list, so each case reads as one line of data. */
export function casesFor(image: string, remoteTags: readonly string[]): CaseBuilder {
  return (name, category, current, expected, why, options = {}) => ({
    id: `${image}/${name}`,
    image,
    category,
    current,
    remoteTags: options.remoteTags ?? remoteTags,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    ...(options.skipTags === undefined ? {} : { skipTags: options.skipTags }),
    expected,
    why,
  });
}

/** A snapshot of a tag list without the tags matching `pattern` (e.g. before a release was published). */
export function without(tags: readonly string[], pattern: RegExp): readonly string[] {
  return tags.filter((tag) => !pattern.test(tag));
}

/** A tag list written as whitespace-separated words: compact, and left alone by the formatter. */
export function tags(text: string): readonly string[] {
  return text.trim().split(/\s+/);
}
