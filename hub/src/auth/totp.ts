/** RFC 6238 TOTP (SHA-1, 30 s steps, 6 digits) over Web Crypto, and RFC 4648 base32. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const TOTP_STEP_MS = 30_000;
/** Steps accepted either side of the current one, for clocks that drift. */
export const TOTP_DRIFT_STEPS = 1;

/** The instant a code of this step stops being accepted: once no current step has it within the drift. */
export function totpStepExpiresAt(step: number): number {
  return (step + TOTP_DRIFT_STEPS + 1) * TOTP_STEP_MS;
}

/** The secret's bytes, or undefined when it is not base32 (spaces and padding are tolerated). */
export function decodeBase32(text: string): Uint8Array | undefined {
  const clean = text.replace(/\s+/g, '').replace(/=+$/, '').toUpperCase();
  if (clean.length === 0) return undefined;
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of clean) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return bytes.length >= 10 ? Uint8Array.from(bytes) : undefined;
}

/** The 6-digit code of one time step. */
export async function totpCode(secret: Uint8Array, counter: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', secret as BufferSource, { name: 'HMAC', hash: 'SHA-1' }, false, [
    'sign',
  ]);
  const message = new DataView(new ArrayBuffer(8));
  message.setUint32(0, Math.floor(counter / 2 ** 32));
  message.setUint32(4, counter >>> 0);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, message.buffer));
  const offset = (mac[19] as number) & 0x0f;
  const view = new DataView(mac.buffer, offset, 4);
  return String((view.getUint32(0) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/**
 * The time step the code belongs to (the current one or either neighbour), or undefined. Every
 * candidate is computed, so the answer takes as long whichever step matched.
 */
export async function matchTotp(secret: Uint8Array, code: string, at: number): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  const current = Math.floor(at / TOTP_STEP_MS);
  let matched: number | undefined;
  for (let counter = current - TOTP_DRIFT_STEPS; counter <= current + TOTP_DRIFT_STEPS; counter++) {
    if ((await totpCode(secret, counter)) === code && matched === undefined) matched = counter;
  }
  return matched;
}
