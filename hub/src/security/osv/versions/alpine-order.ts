/**
 * Alpine package version ordering, apk-tools' algorithm (src/version.c, apk 2.x): digits, an optional
 * letter, suffixes (`_alpha`, `_beta`, `_pre`, `_rc` before the release; `_cvs`, `_svn`, `_git`,
 * `_hg`, `_p` after it), each optionally numbered, then `-rN`. A component with a leading zero
 * compares as a fraction (`1.01` < `1.1`), as apk does. One deviation, on purpose: apk 2.x reads
 * `1.0_rc1` as newer than `1.0` (its leading-zero case forgets the suffix); here `_rc` is before the
 * release there too, as Alpine's packagers and advisories mean it.
 */

// The token kinds, in apk's order: a version that ends where the other goes on is compared by them.
const INVALID = -1;
const DIGIT_OR_ZERO = 0;
const DIGIT = 1;
const LETTER = 2;
const SUFFIX = 3;
const SUFFIX_NO = 4;
const REVISION_NO = 5;
const END = 6;

const PRE_SUFFIXES = ['alpha', 'beta', 'pre', 'rc'];
const POST_SUFFIXES = ['cvs', 'svn', 'git', 'hg', 'p'];

interface Cursor {
  text: string;
  at: number;
  type: number;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function isLower(char: string | undefined): boolean {
  return char !== undefined && char >= 'a' && char <= 'z';
}

/** apk's `next_token`: what kind of token starts at the cursor, consuming its separator. */
function nextToken(cursor: Cursor): void {
  const char = cursor.text[cursor.at];
  let next = INVALID;
  if (char === undefined) next = END;
  else if ((cursor.type === DIGIT || cursor.type === DIGIT_OR_ZERO) && isLower(char)) next = LETTER;
  else if (cursor.type === LETTER && isDigit(char)) next = DIGIT;
  else if (cursor.type === SUFFIX && isDigit(char)) next = SUFFIX_NO;
  else {
    if (char === '.') next = DIGIT_OR_ZERO;
    else if (char === '_') next = SUFFIX;
    else if (char === '-' && cursor.text[cursor.at + 1] === 'r') {
      next = REVISION_NO;
      cursor.at++;
    }
    cursor.at++;
  }
  if (next < cursor.type) {
    const allowed =
      (next === DIGIT_OR_ZERO && cursor.type === DIGIT) ||
      (next === SUFFIX && cursor.type === SUFFIX_NO) ||
      (next === DIGIT && cursor.type === LETTER);
    if (!allowed) next = INVALID;
  }
  cursor.type = next;
}

/** apk's `get_token`: the value of the token at the cursor, then the kind of the next one. */
function getToken(cursor: Cursor): number {
  const rest = cursor.text.length - cursor.at;
  if (rest <= 0) {
    cursor.type = END;
    return 0;
  }
  let value = 0;
  let length = 0;
  let forcedNext = INVALID;
  const char = (offset: number) => cursor.text[cursor.at + offset];
  const leadingZero = cursor.type === DIGIT_OR_ZERO && char(0) === '0';
  switch (leadingZero ? INVALID - 1 : cursor.type) {
    case INVALID - 1:
      // Leading zeros: the more there are, the smaller the component (a fraction).
      while (length < rest && char(length) === '0') length++;
      forcedNext = DIGIT;
      value = -length;
      break;
    case DIGIT_OR_ZERO:
    case DIGIT:
    case SUFFIX_NO:
    case REVISION_NO:
      while (length < rest && isDigit(char(length))) {
        // Capped: a 40-digit component from a hostile advisory must not become Infinity's equal.
        value = Math.min(value * 10 + Number(char(length)), Number.MAX_SAFE_INTEGER);
        length++;
      }
      break;
    case LETTER:
      value = cursor.text.charCodeAt(cursor.at);
      length = 1;
      break;
    case SUFFIX: {
      const tail = cursor.text.slice(cursor.at);
      const pre = PRE_SUFFIXES.findIndex((suffix) => tail.startsWith(suffix));
      if (pre >= 0) {
        value = pre - PRE_SUFFIXES.length;
        length = PRE_SUFFIXES[pre]?.length ?? 0;
        break;
      }
      const post = POST_SUFFIXES.findIndex((suffix) => tail.startsWith(suffix));
      if (post >= 0) {
        value = post;
        length = POST_SUFFIXES[post]?.length ?? 0;
        break;
      }
      cursor.type = INVALID;
      return -1;
    }
    default:
      cursor.type = INVALID;
      return -1;
  }
  cursor.at += length;
  if (cursor.at >= cursor.text.length) cursor.type = END;
  else if (forcedNext !== INVALID && isDigit(cursor.text[cursor.at])) cursor.type = forcedNext;
  else {
    // After leading zeros apk forces a digit token even when none follows, which puts `1.0_rc1`
    // after `1.0`; here the zeros are a digit token and what follows is read as after any digit.
    if (forcedNext !== INVALID) cursor.type = DIGIT;
    nextToken(cursor);
  }
  return value;
}

/** apk's `apk_version_compare_blob`, as −1, 0 or 1. */
export function compareAlpine(a: string, b: string): number {
  const left: Cursor = { text: a.trim(), at: 0, type: DIGIT };
  const right: Cursor = { text: b.trim(), at: 0, type: DIGIT };
  let leftValue = 0;
  let rightValue = 0;
  while (left.type === right.type && left.type !== END && left.type !== INVALID && leftValue === rightValue) {
    leftValue = getToken(left);
    rightValue = getToken(right);
  }
  if (leftValue < rightValue) return -1;
  if (leftValue > rightValue) return 1;
  if (left.type === right.type) return 0;
  // Equal so far: the longer version is greater, unless what follows is a pre-release suffix.
  if (left.type === SUFFIX && getToken({ ...left }) < 0) return -1;
  if (right.type === SUFFIX && getToken({ ...right }) < 0) return 1;
  if (left.type > right.type) return -1;
  if (right.type > left.type) return 1;
  return 0;
}
