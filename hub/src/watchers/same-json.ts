/**
 * Deep equality of JSON-like values (plain objects, arrays, primitives) where an absent key and an
 * `undefined` one are the same, as JSON.stringify sees them, without building the strings: a warm
 * cycle compares every record with its stored one, and a shared sub-object (the same labels, the
 * same env) is equal at once. `ignore` names top-level keys left out.
 */
export function sameJson(a: unknown, b: unknown, ignore?: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], other[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key in left) {
    if (ignore?.has(key)) continue;
    if (!sameJson(left[key], right[key])) return false;
  }
  // Keys only the right side has (with a defined value) differ; the shared ones are checked above.
  for (const key in right) {
    if (ignore?.has(key)) continue;
    if (!(key in left) && right[key] !== undefined) return false;
  }
  return true;
}
