/**
 * PyPI version ordering, PEP 440's basics: `[N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]`, normalised
 * spellings (`alpha`, `c`, `pre`, `-`, `_`) accepted. dev < pre-releases < release < post-releases;
 * the local part breaks ties only by its presence and text. A version that does not parse sorts
 * before every one that does.
 */

interface Pep440 {
  epoch: number;
  release: number[];
  /** [phase, number]: phase 0 a, 1 b, 2 rc; absent for a final release. */
  pre?: [number, number];
  post?: number;
  dev?: number;
  local: string;
}

const PEP440 =
  /^v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|rc|c|pre|preview)[-_.]?(\d*))?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d*))?(?:[-_.]?(dev)[-_.]?(\d*))?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$/;

const PHASES: Record<string, number> = { a: 0, alpha: 0, b: 1, beta: 1, rc: 2, c: 2, pre: 2, preview: 2 };

function toNumber(text: string | undefined): number {
  return Math.min(Number(text || '0'), Number.MAX_SAFE_INTEGER);
}

export function parsePep440(version: string): Pep440 | undefined {
  const match = PEP440.exec(version.trim().toLowerCase());
  if (!match) return undefined;
  const release = (match[2] ?? '0').split('.').map(toNumber);
  // Trailing zeros do not count: 1.0 == 1.0.0.
  while (release.length > 1 && release[release.length - 1] === 0) release.pop();
  const phase = match[3];
  const postGiven = match[5] !== undefined || match[6] !== undefined;
  return {
    epoch: toNumber(match[1]),
    release,
    ...(phase !== undefined && { pre: [PHASES[phase] ?? 0, toNumber(match[4])] as [number, number] }),
    ...(postGiven && { post: toNumber(match[5] ?? match[7]) }),
    ...(match[8] !== undefined && { dev: toNumber(match[9]) }),
    local: match[10] ?? '',
  };
}

function compareNumbers(a: readonly number[], b: readonly number[]): number {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    // Compared, not subtracted: the keys hold infinities.
    const left = a[i] ?? 0;
    const right = b[i] ?? 0;
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/** The sort key of PEP 440 §"Summary of permitted suffixes and relative ordering", as numbers. */
function suffixKey(version: Pep440): number[] {
  // A dev release of a final version sorts before its pre-releases (1.0.dev1 < 1.0a1).
  const pre =
    version.pre ?? (version.post === undefined && version.dev !== undefined ? [-1, 0] : [Number.POSITIVE_INFINITY, 0]);
  const post = version.post === undefined ? [-1] : [version.post];
  const dev = version.dev === undefined ? [Number.POSITIVE_INFINITY] : [version.dev];
  return [...pre, ...post, ...dev];
}

export function comparePypi(a: string, b: string): number {
  const left = parsePep440(a);
  const right = parsePep440(b);
  if (!left || !right) {
    if (left) return 1;
    if (right) return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return (
    Math.sign(left.epoch - right.epoch) ||
    compareNumbers(left.release, right.release) ||
    compareNumbers(suffixKey(left), suffixKey(right)) ||
    (left.local < right.local ? -1 : left.local > right.local ? 1 : 0)
  );
}
