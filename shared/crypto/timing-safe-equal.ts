const encoder = new TextEncoder();

/**
 * Compares two secrets in time independent of where they differ. Both sides are hashed
 * first so that their lengths leak nothing either; Web Crypto only, for every runtime.
 */
export async function timingSafeEqualText(a: string, b: string): Promise<boolean> {
  const [da, db] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(a)),
    crypto.subtle.digest('SHA-256', encoder.encode(b)),
  ]);
  const x = new Uint8Array(da);
  const y = new Uint8Array(db);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * Compares two strings of a fixed, public length (hex digests) in time independent of where they
 * differ. No hashing needed: the lengths tell nothing, and a mismatch in length is simply false.
 */
export function timingSafeEqualFixed(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
