import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { KEY_ID_PATTERN, KEY_PREFIX } from '../../../shared/schemas/api-key';

const KEY_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const KEY_ID_LENGTH = 12;
const SECRET_BYTES = 32;
// 32 bytes in unpadded base64url.
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 12 characters of [a-z0-9]; bytes of 252 and above are redrawn so that no character is likelier than another. */
export function generateKeyId(): string {
  let id = '';
  while (id.length < KEY_ID_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(KEY_ID_LENGTH))) {
      if (byte < 252 && id.length < KEY_ID_LENGTH) id += KEY_ID_ALPHABET[byte % 36];
    }
  }
  return id;
}

export function generateSecret(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

export const formatCredential = (keyId: string, secret: string): string => `${KEY_PREFIX}_${keyId}_${secret}`;
export const displayPrefixOf = (keyId: string): string => `${KEY_PREFIX}_${keyId}\u2026`;

/** Whether a Bearer value claims to be one of our keys; others are failed as malformed keys, except on routes with a credential of their own. */
export const looksLikeApiKey = (value: string): boolean => value.startsWith(`${KEY_PREFIX}_`);

// The whole credential in one anchored pattern (the secret may itself contain underscores): on every
// keyed request, splitting on '_' and testing the parts took three times as long (bench finding).
const CREDENTIAL_PATTERN = new RegExp(
  `^${KEY_PREFIX}_(${KEY_ID_PATTERN.source.slice(1, -1)})_(${SECRET_PATTERN.source.slice(1, -1)})$`,
);

/** Splits `ddk_<keyId>_<secret>`; undefined for any other spelling. */
export function parseCredential(value: string): { keyId: string; secret: string } | undefined {
  const match = CREDENTIAL_PATTERN.exec(value);
  return match ? { keyId: match[1] as string, secret: match[2] as string } : undefined;
}

/**
 * SHA-256 of the secret, hex: what the store keeps instead of the secret. Synchronous (noble's portable SHA-256): Web Crypto's digest is async,
 * and its round trips on every keyed request cost more than half the throughput (bench finding).
 */
export function digestSecret(secret: string): string {
  return bytesToHex(sha256(encoder.encode(secret)));
}
