/**
 * PyPI version ordering, PEP 440 as python's `packaging` implements it:
 * `[N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]`, the normalised spellings (`alpha`, `c`, `pre`,
 * `-`, `_`, a leading `v`, any case) accepted. dev < pre-releases < release < post-releases; a
 * local version sorts after the same version without one, its segments compared one by one:
 * numbers as numbers, above any text. Numbers compare at any length (Python's integers have no
 * limit). A version that does not parse sorts before every one that does.
 */

/** A decimal number as its digits, leading zeros dropped: compared by length, then as text. */
type Digits = string;

interface Pep440 {
  epoch: Digits;
  release: Digits[];
  /** [phase, number]: phase 0 a, 1 b, 2 rc; absent for a final release. */
  pre?: [number, Digits];
  post?: Digits;
  dev?: Digits;
  /** The local segments, lower case; absent without `+…`. */
  local?: string[];
}

const PEP440 =
  /^v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|rc|c|pre|preview)[-_.]?(\d*))?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d*))?(?:[-_.]?(dev)[-_.]?(\d*))?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$/;

const PHASES: Record<string, number> = { a: 0, alpha: 0, b: 1, beta: 1, rc: 2, c: 2, pre: 2, preview: 2 };

// packaging's sort ranks of the pre-release slot: a dev release of a final version (1.0.dev1)
// before every pre-release, a version without a pre-release after them.
const DEV_ONLY = -1;
const FINAL = 3;

function digits(text: string | undefined): Digits {
  return (text ?? '').replace(/^0+/, '');
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareDigits(a: Digits, b: Digits): number {
  return Math.sign(a.length - b.length) || compareText(a, b);
}

export function parsePep440(version: string): Pep440 | undefined {
  const match = PEP440.exec(version.trim().toLowerCase());
  if (!match) return undefined;
  const phase = match[3];
  const postGiven = match[5] !== undefined || match[6] !== undefined;
  return {
    epoch: digits(match[1]),
    release: (match[2] ?? '0').split('.').map(digits),
    ...(phase !== undefined && { pre: [PHASES[phase] ?? 0, digits(match[4])] as [number, Digits] }),
    ...(postGiven && { post: digits(match[5] ?? match[7]) }),
    ...(match[8] !== undefined && { dev: digits(match[9]) }),
    ...(match[10] !== undefined && { local: match[10].split(/[-_.]/) }),
  };
}

/** Release segments; a missing one is 0, so trailing zeros do not count (1.0 == 1.0.0). */
function compareRelease(a: readonly Digits[], b: readonly Digits[]): number {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const order = compareDigits(a[i] ?? '', b[i] ?? '');
    if (order !== 0) return order;
  }
  return 0;
}

function preRank(version: Pep440): number {
  if (version.pre) return version.pre[0];
  return version.post === undefined && version.dev !== undefined ? DEV_ONLY : FINAL;
}

/** A post or dev number; `absent` says where a version without that part sorts. */
function compareOptional(a: Digits | undefined, b: Digits | undefined, absent: -1 | 1): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? absent : -absent;
  return compareDigits(a, b);
}

/** packaging's suffix key: pre-release rank and number, then post (absent first), then dev (absent last). */
function compareSuffix(a: Pep440, b: Pep440): number {
  return (
    Math.sign(preRank(a) - preRank(b)) ||
    compareDigits(a.pre?.[1] ?? '', b.pre?.[1] ?? '') ||
    compareOptional(a.post, b.post, -1) ||
    compareOptional(a.dev, b.dev, 1)
  );
}

const NUMERIC = /^\d+$/;

/** PEP 440: a number segment is newer than a text one; shorter is older when the rest is equal. */
function compareLocal(a: readonly string[] | undefined, b: readonly string[] | undefined): number {
  if (!a || !b) return a ? 1 : b ? -1 : 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const left = a[i] ?? '';
    const right = b[i] ?? '';
    const leftNumber = NUMERIC.test(left);
    const rightNumber = NUMERIC.test(right);
    const order =
      leftNumber && rightNumber
        ? compareDigits(digits(left), digits(right))
        : leftNumber !== rightNumber
          ? leftNumber
            ? 1
            : -1
          : compareText(left, right);
    if (order !== 0) return order;
  }
  return Math.sign(a.length - b.length);
}

export function comparePypi(a: string, b: string): number {
  const left = parsePep440(a);
  const right = parsePep440(b);
  if (!left || !right) {
    if (left) return 1;
    if (right) return -1;
    return compareText(a, b);
  }
  return (
    compareDigits(left.epoch, right.epoch) ||
    compareRelease(left.release, right.release) ||
    compareSuffix(left, right) ||
    compareLocal(left.local, right.local)
  );
}
