/**
 * Alpine package version ordering, apk-tools 3's algorithm (src/version.c):
 * `digit{.digit}…{letter}{_suffix{number}}…{~hash}{-rN}`. `_alpha`, `_beta`, `_pre`, `_rc` sort
 * before the release, `_cvs`, `_svn`, `_git`, `_hg`, `_p` after it. A dotted component with a leading
 * zero compares as text against the other (`1.01` < `1.1`, `1.010` < `1.09`), the first component
 * always as a number. Where apk-tools 2.14 orders otherwise (leading zeros, `~hash`, a digit after a
 * letter), apk 3 is followed: docs/security-scanning.md lists the differences, and the one deviation
 * (numbers past 2^64, which apk wraps).
 */

// Token kinds in apk 3's order: where one version ends and the other goes on, the kinds decide.
const INITIAL_DIGIT = 0;
const DIGIT = 1;
const LETTER = 2;
const SUFFIX = 3;
const SUFFIX_NO = 4;
const COMMIT_HASH = 5;
const REVISION_NO = 6;
const END = 7;
const INVALID = 8;

// apk's suffix values; "no suffix" would sit between the two lists.
const PRE_SUFFIXES = ['alpha', 'beta', 'pre', 'rc'];
const POST_SUFFIXES = ['cvs', 'svn', 'git', 'hg', 'p'];

interface Token {
  kind: number;
  /** The token's text: digits, the letter, the suffix name or the hash. */
  text: string;
  /** Suffixes only: negative before the release, positive after. */
  suffix: number;
}

interface Cursor {
  version: string;
  at: number;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function isLower(char: string | undefined): boolean {
  return char !== undefined && char >= 'a' && char <= 'z';
}

function isHex(char: string | undefined): boolean {
  return isDigit(char) || (char !== undefined && char >= 'a' && char <= 'f');
}

function take(cursor: Cursor, accepts: (char: string | undefined) => boolean): string {
  const start = cursor.at;
  while (accepts(cursor.version[cursor.at])) cursor.at++;
  return cursor.version.slice(start, cursor.at);
}

function digits(kind: number, cursor: Cursor): Token {
  const text = take(cursor, isDigit);
  return { kind: text === '' ? INVALID : kind, text, suffix: 0 };
}

function suffixValue(name: string): number {
  const pre = PRE_SUFFIXES.indexOf(name);
  if (pre >= 0) return pre - PRE_SUFFIXES.length;
  const post = POST_SUFFIXES.indexOf(name);
  return post >= 0 ? post + 1 : 0;
}

/** apk's `token_next`: the token after `previous`, or INVALID where the grammar does not allow one. */
function nextToken(previous: Token, cursor: Cursor): Token {
  const char = cursor.version[cursor.at];
  const invalid: Token = { kind: INVALID, text: '', suffix: 0 };
  if (char === undefined) return { kind: END, text: '', suffix: 0 };
  if (isLower(char)) {
    if (previous.kind > DIGIT) return invalid;
    cursor.at++;
    return { kind: LETTER, text: char, suffix: 0 };
  }
  if (char === '.' || isDigit(char)) {
    if (char === '.') {
      if (previous.kind > DIGIT) return invalid;
      cursor.at++;
    }
    if (previous.kind === INITIAL_DIGIT || previous.kind === DIGIT) return digits(DIGIT, cursor);
    if (previous.kind === SUFFIX) return digits(SUFFIX_NO, cursor);
    return invalid;
  }
  if (char === '_') {
    if (previous.kind > SUFFIX_NO) return invalid;
    cursor.at++;
    const text = take(cursor, isLower);
    const suffix = suffixValue(text);
    return suffix === 0 ? invalid : { kind: SUFFIX, text, suffix };
  }
  if (char === '~') {
    if (previous.kind >= COMMIT_HASH) return invalid;
    cursor.at++;
    const text = take(cursor, isHex);
    return text === '' ? invalid : { kind: COMMIT_HASH, text, suffix: 0 };
  }
  if (char === '-') {
    if (previous.kind >= REVISION_NO || cursor.version[cursor.at + 1] !== 'r') return invalid;
    cursor.at += 2;
    return digits(REVISION_NO, cursor);
  }
  return invalid;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Decimal digit strings by value, at any length: apk holds them in 64 bits, JavaScript numbers in 53. */
function compareDigits(a: string, b: string): number {
  const left = a.replace(/^0+/, '');
  const right = b.replace(/^0+/, '');
  return Math.sign(left.length - right.length) || compareText(left, right);
}

/** apk's `token_cmp`, for two tokens of the same kind. */
function compareTokens(a: Token, b: Token): number {
  switch (a.kind) {
    case DIGIT:
      // A leading zero on either side: text order, as Gentoo's rules have it.
      if (a.text.startsWith('0') || b.text.startsWith('0')) return compareText(a.text, b.text);
      return compareDigits(a.text, b.text);
    case INITIAL_DIGIT:
    case SUFFIX_NO:
    case REVISION_NO:
      return compareDigits(a.text, b.text);
    case SUFFIX:
      return Math.sign(a.suffix - b.suffix);
    default:
      // The letter, the commit hash.
      return compareText(a.text, b.text);
  }
}

function firstToken(version: string): [Token, Cursor] {
  const cursor = { version, at: 0 };
  return [digits(INITIAL_DIGIT, cursor), cursor];
}

/** apk's `apk_version_validate`: whether apk-tools 3 accepts the version at all. */
export function isAlpineVersion(version: string): boolean {
  let [token, cursor] = firstToken(version);
  while (token.kind < END) token = nextToken(token, cursor);
  return token.kind === END;
}

/**
 * apk's `apk_version_compare`, as −1, 0 or 1. Versions apk would refuse still get its answer: they
 * compare up to the first token it cannot read, and that token sorts lowest.
 */
export function compareAlpine(a: string, b: string): number {
  let [left, leftCursor] = firstToken(a.trim());
  let [right, rightCursor] = firstToken(b.trim());
  while (left.kind === right.kind && left.kind < END) {
    const order = compareTokens(left, right);
    if (order !== 0) return order;
    left = nextToken(left, leftCursor);
    right = nextToken(right, rightCursor);
  }
  if (left.kind === right.kind) return 0;
  // Equal so far: the longer version is greater, unless what follows is a pre-release suffix.
  if (left.kind === SUFFIX && left.suffix < 0) return -1;
  if (right.kind === SUFFIX && right.suffix < 0) return 1;
  return left.kind > right.kind ? -1 : 1;
}
