import { parseTail, type VersionTail } from './tail';

/** The OCI distribution spec caps a tag at 128 characters; anything longer is not a tag. */
export const MAX_TAG_LENGTH = 128;

/** A transform may lengthen a tag; past this the result is not worth parsing. */
const MAX_PARSE_LENGTH = 256;

const DOT = 46;

/** Parts longer than this would lose precision as numbers; no real version has them. */
const MAX_PART_DIGITS = 15;

/**
 * Prefixes after which a number is not a version: identifiers (commit, pull request), where a higher
 * number is not newer, and moving channels, where it names a variant (`latest-22`: latest on Node 22).
 */
const NOT_A_VERSION_PREFIX = /^(?:sha|commit|git|pr|pull|latest|lts|current|mainline)[._-]$/i;

/** Build metadata as in semver (`+build.5`); ignored for ordering. OCI tags cannot hold `+`, transforms can. */
const METADATA = /^[0-9A-Za-z.-]+$/;

/**
 * How big the leading number is. Date stamps (`20240807`), years (`2024.10.1`) and plain numbers
 * (`3.20.2`) can share a repository and a part count (alpine has `3` and `20240807`), but are
 * different schemes: a tag never moves from one magnitude to another.
 */
export type Magnitude = 'number' | 'year' | `date${number}`;

export interface ParsedVersion extends VersionTail {
  readonly prefix: string;
  readonly parts: readonly number[];
  readonly magnitude: Magnitude;
}

/**
 * Parses a (transformed) tag as a version; undefined when it is not one. Never throws.
 * Hand-scanned rather than one big regex: it runs on every tag of a repository (100,000 happen).
 */
export function parseVersionTag(tag: string): ParsedVersion | undefined {
  if (tag.length === 0 || tag.length > MAX_PARSE_LENGTH) return undefined;
  const plus = tag.indexOf('+');
  if (plus >= 0 && !METADATA.test(tag.slice(plus + 1))) return undefined;
  const main = plus >= 0 ? tag.slice(0, plus) : tag;
  const start = prefixLength(main);
  if (start < 0) return undefined;
  const parts: number[] = [];
  let i = start;
  let firstDigits = 0;
  while (parts.length < 4) {
    const end = digitsEnd(main, i);
    if (end === i || end - i > MAX_PART_DIGITS) return undefined;
    if (parts.length === 0) firstDigits = significantDigits(main, i, end);
    parts.push(Number(main.slice(i, end)));
    i = end;
    if (main.charCodeAt(i) !== DOT) break;
    i++;
  }
  const tail = parseTail(main.slice(i));
  if (tail === undefined) return undefined;
  return { prefix: main.slice(0, start), parts, magnitude: magnitudeOf(firstDigits, parts[0] ?? 0), ...tail };
}

export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isSeparator(code: number): boolean {
  return code === DOT || code === 45 || code === 95;
}

/**
 * Length of the prefix before the first digit, or -1. A prefix is `v`/`V`, or a word ending in a
 * separator (`version-`, `release-`, `noble-`, `RELEASE.`), optionally followed by `v`. A word glued
 * to the digits (`alpine3.19`, `ltsc2022`) is not a prefix: those tags name a base image, not a version.
 */
function prefixLength(tag: string): number {
  let i = 0;
  while (i < tag.length && (isLetter(tag.charCodeAt(i)) || isSeparator(tag.charCodeAt(i)))) i++;
  if (!isDigit(tag.charCodeAt(i))) return -1;
  if (i === 0) return 0;
  const prefix = tag.slice(0, i);
  const word = prefix.endsWith('v') || prefix.endsWith('V') ? prefix.slice(0, -1) : prefix;
  const valid = word === '' || (isLetter(word.charCodeAt(0)) && isSeparator(word.charCodeAt(word.length - 1)));
  return valid && !NOT_A_VERSION_PREFIX.test(word) ? i : -1;
}

function digitsEnd(text: string, from: number): number {
  let i = from;
  while (isDigit(text.charCodeAt(i))) i++;
  return i;
}

function significantDigits(text: string, from: number, end: number): number {
  let i = from;
  while (i < end - 1 && text.charCodeAt(i) === 48) i++;
  return end - i;
}

function magnitudeOf(digits: number, value: number): Magnitude {
  if (digits >= 6) return `date${digits}`;
  return digits === 4 && value >= 1970 && value < 2200 ? 'year' : 'number';
}
