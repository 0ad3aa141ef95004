/**
 * Shell-style glob: `*` any run of characters, `?` exactly one, everything else literal. Matched
 * with the greedy two-pointer walk (back to the last `*` on a mismatch) rather than a regex, so a
 * selector such as `*a*a*a*b` costs O(pattern × text) at worst, never exponential backtracking.
 */
export function matchesGlob(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (pattern[p] === '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.length && (pattern[p] === '?' || pattern[p] === text[t])) {
      p++;
      t++;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}
