/**
 * RPM version ordering: `[epoch:]version[-release]`, epoch as a number, version and release by
 * rpmvercmp (rpmio/rpmvercmp.c, rpm ≥ 4.15): alphanumeric segments, numbers greater than letters,
 * `~` before everything (even the end), `^` after the end but before anything else.
 */

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function isAlpha(char: string | undefined): boolean {
  return char !== undefined && ((char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z'));
}

function isAlnum(char: string | undefined): boolean {
  return isDigit(char) || isAlpha(char);
}

export function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while (i < a.length && !isAlnum(a[i]) && a[i] !== '~' && a[i] !== '^') i++;
    while (j < b.length && !isAlnum(b[j]) && b[j] !== '~' && b[j] !== '^') j++;
    if (a[i] === '~' || b[j] === '~') {
      if (a[i] !== '~') return 1;
      if (b[j] !== '~') return -1;
      i++;
      j++;
      continue;
    }
    if (a[i] === '^' || b[j] === '^') {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (i >= a.length || j >= b.length) break;
    let endA = i;
    let endB = j;
    const numeric = isDigit(a[i]);
    const inSegment = numeric ? isDigit : isAlpha;
    while (endA < a.length && inSegment(a[endA])) endA++;
    while (endB < b.length && inSegment(b[endB])) endB++;
    // The other side has a segment of the other kind: numbers are newer than letters.
    if (endB === j) return numeric ? 1 : -1;
    let segmentA = a.slice(i, endA);
    let segmentB = b.slice(j, endB);
    if (numeric) {
      segmentA = segmentA.replace(/^0+/, '');
      segmentB = segmentB.replace(/^0+/, '');
      if (segmentA.length !== segmentB.length) return segmentA.length > segmentB.length ? 1 : -1;
    }
    if (segmentA !== segmentB) return segmentA < segmentB ? -1 : 1;
    i = endA;
    j = endB;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}

interface Evr {
  epoch: bigint;
  version: string;
  release: string;
}

export function parseEvr(text: string): Evr {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  const epochText = colon >= 0 ? trimmed.slice(0, colon) : '';
  const epoch = /^\d+$/.test(epochText) ? BigInt(epochText) : 0n;
  const rest = colon >= 0 ? trimmed.slice(colon + 1) : trimmed;
  const hyphen = rest.lastIndexOf('-');
  return hyphen >= 0
    ? { epoch, version: rest.slice(0, hyphen), release: rest.slice(hyphen + 1) }
    : { epoch, version: rest, release: '' };
}

export function compareRpm(a: string, b: string): number {
  const left = parseEvr(a);
  const right = parseEvr(b);
  if (left.epoch !== right.epoch) return left.epoch < right.epoch ? -1 : 1;
  const version = rpmvercmp(left.version, right.version);
  // A missing release sorts before every release: a total order, which range matching needs.
  return version !== 0 ? version : rpmvercmp(left.release, right.release);
}
