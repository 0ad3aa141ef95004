/**
 * Debian version ordering, dpkg's algorithm exactly (lib/dpkg/version.c `dpkg_version_compare`):
 * `[epoch:]upstream[-revision]`, the epoch compared as a number, then upstream and revision by
 * `verrevcmp`, in which `~` sorts before everything, even the end of the string.
 */

interface DebianVersion {
  epoch: bigint;
  upstream: string;
  revision: string;
}

export function parseDebianVersion(version: string): DebianVersion {
  const text = version.trim();
  const colon = text.indexOf(':');
  const epochText = colon >= 0 ? text.slice(0, colon) : '';
  const epoch = /^\d+$/.test(epochText) ? BigInt(epochText) : 0n;
  const rest = colon >= 0 ? text.slice(colon + 1) : text;
  const hyphen = rest.lastIndexOf('-');
  return hyphen >= 0
    ? { epoch, upstream: rest.slice(0, hyphen), revision: rest.slice(hyphen + 1) }
    : { epoch, upstream: rest, revision: '' };
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isAlpha(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** dpkg's `order()`: digits 0, letters their code, `~` −1, the end 0, anything else its code + 256. */
function order(code: number | undefined): number {
  if (code === undefined || isDigit(code)) return 0;
  if (isAlpha(code)) return code;
  if (code === 126) return -1;
  return code + 256;
}

/** dpkg's `verrevcmp`. */
export function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  const at = (text: string, index: number) => (index < text.length ? text.charCodeAt(index) : undefined);
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !isDigit(a.charCodeAt(i))) || (j < b.length && !isDigit(b.charCodeAt(j)))) {
      const ac = order(at(a, i));
      const bc = order(at(b, j));
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a.charCodeAt(i) === 48) i++;
    while (b.charCodeAt(j) === 48) j++;
    while (i < a.length && j < b.length && isDigit(a.charCodeAt(i)) && isDigit(b.charCodeAt(j))) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && isDigit(a.charCodeAt(i))) return 1;
    if (j < b.length && isDigit(b.charCodeAt(j))) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

export function compareDebian(a: string, b: string): number {
  const left = parseDebianVersion(a);
  const right = parseDebianVersion(b);
  if (left.epoch !== right.epoch) return left.epoch < right.epoch ? -1 : 1;
  return Math.sign(verrevcmp(left.upstream, right.upstream)) || Math.sign(verrevcmp(left.revision, right.revision));
}
