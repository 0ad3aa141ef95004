import { argon2idAsync } from '@noble/hashes/argon2.js';
import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';

/** A parsed `$argon2id$v=19$m=…,t=…,p=…$salt$hash` string (the PHC format). */
export interface Argon2idHash {
  m: number;
  t: number;
  p: number;
  salt: Uint8Array;
  hash: Uint8Array;
}

const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
// Bounds that keep one verification from exhausting the hub (m in KiB: at most 256 MiB).
const MAX_MEMORY_KIB = 262_144;

function decodeBase64(text: string): Uint8Array {
  const padded = text + '='.repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
}

/** The parsed hash, or undefined for any other kind or spelling. */
export function parseArgon2id(phc: string): Argon2idHash | undefined {
  const match = PHC.exec(phc.trim());
  if (!match) return undefined;
  const [m, t, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (m < 8 * p || m > MAX_MEMORY_KIB || t < 1 || p < 1) return undefined;
  try {
    const salt = decodeBase64(match[4] as string);
    const hash = decodeBase64(match[5] as string);
    if (salt.length < 8 || hash.length < 16) return undefined;
    return { m, t, p, salt, hash };
  } catch {
    return undefined;
  }
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/** Whether the password matches; the final comparison is constant-time. */
export async function verifyArgon2id(password: string, expected: Argon2idHash): Promise<boolean> {
  const derived = await argon2idAsync(new TextEncoder().encode(password), expected.salt, {
    m: expected.m,
    t: expected.t,
    p: expected.p,
    dkLen: expected.hash.length,
  });
  return timingSafeEqualText(hex(derived), hex(expected.hash));
}
