/**
 * Everything after the numbers of a version tag: prerelease, build counters, a commit hash and the
 * suffix words that name the variant (`-alpine3.20`, `-slim-bookworm`, `-fpm-alpine`, `-management`).
 */

/** alpha < beta < rc form one ladder; other labels are channels that only follow themselves. */
const LADDER: Readonly<Record<string, number>> = { a: 1, alpha: 1, b: 2, beta: 2, rc: 3 };
const LABELS = 'alpha|beta|rc|a|b|dev|pre|preview|nightly|canary|snapshot|next|unstable|insiders?|ea|test';
const PRERELEASE = new RegExp(`^(${LABELS})(?:\\.?(\\d{1,9}))?$`, 'i');

/** `-ls123` (linuxserver build), `-r2` (package or image revision): rebuild counters of one upstream version. */
const NAMED_BUILD = /^(ls|r)(\d{1,9})$/;
const DIGITS = /^\d+$/;
/** `-20240812`, `-202408121530`: a date-stamped rebuild, ordered like a build counter. */
const DATE_STAMP = /^(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:\d\d){0,3}$/;
/** `2.3.0p13`: checkmk-style patch level glued to the numbers. */
const VENDOR_PATCH = /^p(\d{1,9})$/;
/** A git short hash as in plex's `1.40.1.8227-c0dd5a73e`: identifies a build, carries no order. All-digit ones are read elsewhere. */
const HASH = /^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}$/;
const WORD = /^[A-Za-z][A-Za-z0-9.]*$/;
/** A glued word must start with two letters (`ubu2404`), so hex garbage like `1a2b3c` stays garbage. */
const GLUED_WORD = /^[A-Za-z]{2}[A-Za-z0-9.]*$/;
const DOTTED_NUMBER = /^\d{1,9}(?:\.\d{1,9})*$/;
const SEGMENTS = /^(?:[-_][A-Za-z0-9.]+)*$/;
const HYPHEN = 45;
const UNDERSCORE = 95;

export interface Prerelease {
  /** Lower case, with `a`/`b` spelled out (`alpha`/`beta`). */
  readonly label: string;
  /** 1 alpha, 2 beta, 3 rc; 0 for a channel (dev, nightly, preview…). */
  readonly rank: number;
  readonly num: number | undefined;
}

export interface BuildCounter {
  /** `ls`, `r`, `p`, `date`, or `_` (temurin's `21.0.4_7`). */
  readonly marker: string;
  readonly num: number;
}

export interface VersionTail {
  readonly pre: Prerelease | undefined;
  readonly builds: readonly BuildCounter[];
  /** The variant words with their separators, as written: `-alpine3.20`, `-slim-bookworm`, `ubu2404`. */
  readonly suffix: string;
  /** The suffix with each digit run replaced by `#` (`-alpine#.#`): what a family shares. */
  readonly template: string;
  readonly hasHash: boolean;
}

/** The tail of most tags (`1.2.3`), shared rather than allocated per tag. */
const PLAIN: VersionTail = { pre: undefined, builds: [], suffix: '', template: '', hasHash: false };

interface TailState {
  pre: Prerelease | undefined;
  builds: BuildCounter[];
  words: string[];
  hasHash: boolean;
}

/** Parses what follows the numbers; undefined when it is not a version tail. */
export function parseTail(rest: string): VersionTail | undefined {
  if (rest === '') return PLAIN;
  const state: TailState = { pre: undefined, builds: [], words: [], hasHash: false };
  const glued = /^[A-Za-z][A-Za-z0-9.]*/.exec(rest)?.[0] ?? '';
  if (glued && !readGlued(glued, state)) return undefined;
  const segments = rest.slice(glued.length);
  if (!SEGMENTS.test(segments)) return undefined;
  // SEGMENTS has checked the shape: each segment is a separator and at least one character.
  // A hand loop, not matchAll: this runs on every tag of a repository.
  let start = 0;
  while (start < segments.length) {
    const end = nextSeparator(segments, start + 1);
    if (!readSegment(segments.charAt(start), segments.slice(start + 1, end), state)) return undefined;
    start = end;
  }
  const suffix = state.words.join('');
  return {
    pre: state.pre,
    builds: state.builds,
    suffix,
    template: suffix.replace(/\d+/g, '#'),
    hasHash: state.hasHash,
  };
}

function nextSeparator(text: string, from: number): number {
  let i = from;
  while (i < text.length && text.charCodeAt(i) !== HYPHEN && text.charCodeAt(i) !== UNDERSCORE) i++;
  return i;
}

function readGlued(text: string, state: TailState): boolean {
  const patch = VENDOR_PATCH.exec(text);
  if (patch) {
    state.builds.push({ marker: 'p', num: Number(patch[1]) });
    return true;
  }
  const pre = readPrerelease(text);
  if (pre) {
    state.pre = pre;
    return true;
  }
  if (!GLUED_WORD.test(text)) return false;
  state.words.push(text);
  return true;
}

function readSegment(separator: string, segment: string, state: TailState): boolean {
  // Cheap first-character checks spare most regex tests on long variant lists.
  const first = segment.charCodeAt(0);
  if (first <= 57 && DIGITS.test(segment)) return readNumberSegment(separator, segment, state);
  if (first <= 102 && segment.length >= 7 && !state.hasHash && HASH.test(segment)) {
    state.hasHash = true;
    return true;
  }
  const untouched = state.pre === undefined && state.builds.length === 0 && state.words.length === 0 && !state.hasHash;
  const pre = untouched ? readPrerelease(segment) : undefined;
  if (pre) {
    state.pre = pre;
    return true;
  }
  const named = first === 108 || first === 114 ? NAMED_BUILD.exec(segment) : null;
  if (named) {
    state.builds.push({ marker: named[1] ?? '', num: Number(named[2]) });
    return true;
  }
  if (!WORD.test(segment) && !(state.words.length > 0 && DOTTED_NUMBER.test(segment))) return false;
  state.words.push(separator, segment);
  return true;
}

/**
 * A bare number is a date-stamped rebuild (`-20240812`), a hash that happens to be all digits
 * (plex's `1.40.4.8679-424562606`), temurin's build counter (`21.0.4_7`), or else part of the variant:
 * node-red's `4.0.3-22` is Node 22, bitnami's `-debian-12` is Debian 12; neither is a newer build of `-20`/`-11`.
 */
function readNumberSegment(separator: string, segment: string, state: TailState): boolean {
  if (DATE_STAMP.test(segment)) {
    state.builds.push({ marker: 'date', num: Number(segment) });
    return true;
  }
  if (segment.length >= 7) {
    if (state.hasHash) return false;
    state.hasHash = true;
    return true;
  }
  if (separator === '_' && state.words.length === 0) {
    state.builds.push({ marker: '_', num: Number(segment) });
    return true;
  }
  state.words.push(separator, segment);
  return true;
}

function readPrerelease(text: string): Prerelease | undefined {
  const match = PRERELEASE.exec(text);
  if (!match) return undefined;
  const raw = (match[1] ?? '').toLowerCase();
  const num = match[2] === undefined ? undefined : Number(match[2]);
  // A lone `a` or `b` is too ambiguous to be a prerelease; `a1`, `b3` (python, home-assistant) are not.
  if ((raw === 'a' || raw === 'b') && num === undefined) return undefined;
  const rank = LADDER[raw] ?? 0;
  const label = raw === 'a' ? 'alpha' : raw === 'b' ? 'beta' : raw;
  return { label, rank, num };
}
