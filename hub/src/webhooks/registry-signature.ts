/**
 * The registry webhook's signature (http-interface §5.9): HMAC-SHA256 of the exact raw body, keyed with
 * DD_SERVER_WEBHOOK_SECRET, as 64 hex digits or `sha256=<hex>`, in any one of these headers
 * (each registry or relay names it its own way). Web Crypto only, so every runtime verifies alike.
 */
export const SIGNATURE_HEADERS = [
  'x-drydock-signature',
  'x-hub-signature-256',
  'x-quay-signature',
  'x-harbor-signature',
  'x-ms-signature',
  'x-registry-signature',
] as const;

const SIGNATURE = /^(?:sha256=)?([0-9a-fA-F]{64})$/;
const encoder = new TextEncoder();

export type SignatureCheck = 'valid' | 'missing' | 'invalid';

export interface SignatureVerifier {
  /** Whether any of the presented header values signs these exact bytes. */
  verify(body: Uint8Array, headerValues: readonly (string | undefined)[]): Promise<SignatureCheck>;
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** The key is imported once; `crypto.subtle.verify` compares the MACs in constant time. */
export function createSignatureVerifier(secret: string): SignatureVerifier {
  const key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  return {
    async verify(body, headerValues) {
      const presented = headerValues.filter((value): value is string => value !== undefined && value.trim() !== '');
      if (presented.length === 0) return 'missing';
      const data = new Uint8Array(body);
      for (const value of presented) {
        const hex = SIGNATURE.exec(value.trim())?.[1];
        if (hex === undefined) continue;
        if (await crypto.subtle.verify('HMAC', await key, hexToBytes(hex), data)) return 'valid';
      }
      return 'invalid';
    },
  };
}

/** The signature a sender puts in its header: `sha256=<hex>` (tests, relays and benchmarks sign with it). */
export async function signBody(secret: string, body: string | Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const bytes = typeof body === 'string' ? encoder.encode(body) : new Uint8Array(body);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, bytes));
  return `sha256=${[...mac].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
