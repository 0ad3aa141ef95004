/**
 * Maven version ordering, the basics of ComparableVersion: items split on `.`, `-` and digit/letter
 * transitions; numbers compare as numbers; the known qualifiers in order
 * alpha < beta < milestone < rc = cr < snapshot < "" = ga = final = release < sp; unknown
 * qualifiers after them, by text; a number is greater than any qualifier. Trailing nulls (`0`, ``,
 * `final`) do not count: 1.0 == 1 == 1.0.0-ga. Simplified: sub-lists after `-` are flattened.
 */

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = {
  a: 'alpha',
  b: 'beta',
  m: 'milestone',
  cr: 'rc',
  ga: '',
  final: '',
  release: '',
};

type Item = { number: bigint } | { qualifier: string };

function tokens(version: string): Item[] {
  const items: Item[] = [];
  for (const part of version
    .trim()
    .toLowerCase()
    .match(/\d+|[a-z]+/g) ?? []) {
    if (/^\d/.test(part)) items.push({ number: BigInt(part) });
    else items.push({ qualifier: ALIASES[part] ?? part });
  }
  // Maven drops the nulls that end each list: trailing zeros and releases, and zeros before a
  // qualifier (1.0-beta1 is 1-beta-1). What is left pads with the null item, the release.
  return items.filter((item, index) => {
    if (!('number' in item) || item.number !== 0n)
      return !('qualifier' in item && item.qualifier === '' && isTail(items, index));
    return (
      !isTail(items, index) &&
      !('qualifier' in (items.slice(index).find((next) => !('number' in next && next.number === 0n)) ?? {}))
    );
  });
}

/** Whether only nulls (zeros, releases) follow from index on. */
function isTail(items: readonly Item[], index: number): boolean {
  return items.slice(index).every((item) => ('number' in item ? item.number === 0n : item.qualifier === ''));
}

function qualifierRank(qualifier: string): [number, string] {
  const known = QUALIFIERS.indexOf(qualifier);
  return known >= 0 ? [known, ''] : [QUALIFIERS.length, qualifier];
}

/** A number is above every qualifier; the missing item is the release qualifier, so the order is total. */
function compareItem(a: Item | undefined, b: Item | undefined): number {
  const left = a ?? { qualifier: '' };
  const right = b ?? { qualifier: '' };
  if ('number' in left && 'number' in right)
    return left.number < right.number ? -1 : left.number > right.number ? 1 : 0;
  if ('number' in left) return 1;
  if ('number' in right) return -1;
  const [rankA, textA] = qualifierRank(left.qualifier);
  const [rankB, textB] = qualifierRank(right.qualifier);
  if (rankA !== rankB) return rankA < rankB ? -1 : 1;
  return textA < textB ? -1 : textA > textB ? 1 : 0;
}

export function compareMaven(a: string, b: string): number {
  const left = tokens(a);
  const right = tokens(b);
  const length = Math.max(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const difference = compareItem(left[i], right[i]);
    if (difference !== 0) return difference;
  }
  return 0;
}
