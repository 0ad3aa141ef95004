/**
 * Base64 (standard alphabet, padded) decoding for `chunk` frames (docs/edge-protocol.md "Image
 * export"): a table lookup over the text, portable (no Buffer), a few milliseconds per megabyte.
 * `atob` and a per-character map took about half a second per MiB, which capped an agent's export
 * at 2 MiB/s.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const INVALID = 255;
/** Every UTF-16 code unit's value; INVALID outside the alphabet, so the hot loop needs no range check. */
const VALUES = new Uint8Array(65536).fill(INVALID);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/** The bytes of padded base64 text; undefined for anything else (a bad length, character or padding). */
export function decodeChunkBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  // Every group but the last is four alphabet characters and three bytes.
  const full = text.length - (padding > 0 ? 4 : 0);
  let at = 0;
  for (let i = 0; i < full; i += 4) {
    const a = VALUES[text.charCodeAt(i)] as number;
    const b = VALUES[text.charCodeAt(i + 1)] as number;
    const c = VALUES[text.charCodeAt(i + 2)] as number;
    const d = VALUES[text.charCodeAt(i + 3)] as number;
    if ((a | b | c | d) > 63) return undefined;
    out[at] = (a << 2) | (b >> 4);
    out[at + 1] = ((b & 15) << 4) | (c >> 2);
    out[at + 2] = ((c & 3) << 6) | d;
    at += 3;
  }
  if (padding === 0) return out;
  const a = VALUES[text.charCodeAt(full)] as number;
  const b = VALUES[text.charCodeAt(full + 1)] as number;
  const c = padding === 1 ? (VALUES[text.charCodeAt(full + 2)] as number) : 0;
  if ((a | b | c) > 63) return undefined;
  out[at] = (a << 2) | (b >> 4);
  if (padding === 1) out[at + 1] = ((b & 15) << 4) | (c >> 2);
  return out;
}
