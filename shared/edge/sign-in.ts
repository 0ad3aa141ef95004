import * as ed from '@noble/ed25519';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The challenge-response sign-in of edge/1.0 (decisions §6): no clocks, no replay cache. The hub
 * sends a fresh random challenge; the agent signs a byte string that binds that challenge, the
 * protocol version, its key id and its agent name, so a signature is good for one sign-in only and
 * cannot be moved to another version, key or name.
 */
const DOMAIN = 'dockwatch-edge-sign-in';
const textEncoder = new TextEncoder();

/** The exact bytes signed: UTF-8 of five lines joined by "\n", without a trailing newline. */
export function signInMessage(challenge: string, protocol: string, keyId: string, agentName: string): Uint8Array {
  return textEncoder.encode([DOMAIN, protocol, challenge, keyId, agentName].join('\n'));
}

/** keyId = the first 8 bytes of SHA-256 of the raw 32-byte public key, in lower-case hex. */
export function edgeKeyId(publicKey: Uint8Array): string {
  return toHex(sha256(publicKey).subarray(0, 8));
}

/** 32 random bytes, base64url: the hub's challenge for one sign-in. */
export function newChallenge(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function signChallenge(
  secretKey: Uint8Array,
  challenge: string,
  protocol: string,
  keyId: string,
  agentName: string,
): Promise<string> {
  return toBase64Url(await ed.signAsync(signInMessage(challenge, protocol, keyId, agentName), secretKey));
}

/**
 * Checks one Ed25519 signature, synchronously: a runtime's native one (Node: node:crypto) or
 * @noble/ed25519's (hub/src/edge/sign-in-check.ts).
 */
export type Ed25519Verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/** False for a bad signature, and for anything malformed: never throws. */
export async function verifySignIn(
  publicKey: Uint8Array,
  signature: string,
  challenge: string,
  protocol: string,
  keyId: string,
  agentName: string,
): Promise<boolean> {
  const signatureBytes = fromBase64Url(signature);
  if (signatureBytes?.length !== 64 || publicKey.length !== 32) return false;
  try {
    return await ed.verifyAsync(signatureBytes, signInMessage(challenge, protocol, keyId, agentName), publicKey);
  } catch {
    return false;
  }
}

export async function generateEdgeKeyPair(): Promise<{ secretKey: Uint8Array; publicKey: Uint8Array }> {
  const { secretKey, publicKey } = await ed.keygenAsync();
  return { secretKey, publicKey };
}

export async function publicKeyOf(secretKey: Uint8Array): Promise<Uint8Array> {
  return ed.getPublicKeyAsync(secretKey);
}

// ---- encodings (portable: no Buffer) --------------------------------------------------------

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Standard base64 (padding optional); undefined for anything else. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const padded = text.replace(/-/g, '+').replace(/_/g, '/');
  return fromBase64(padded + '='.repeat((4 - (padded.length % 4)) % 4));
}
