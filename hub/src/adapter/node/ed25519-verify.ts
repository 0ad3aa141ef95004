import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { Ed25519Verify } from '../../../../shared/edge/sign-in';

/** Keys kept parsed; an agent signs in again with the same key, and a fleet has one key per agent. */
const MAX_CACHED_KEYS = 65_536;

/**
 * Ed25519 through node:crypto (OpenSSL), synchronously: about 25 times faster than @noble/ed25519
 * in JS (0.2 against 4.4 ms a verification on this 2-core machine under load), which held the
 * event loop through a 10,000-agent sign-in (bench edge-agents). OpenSSL follows RFC
 * 8032's strict checks, so it refuses some non-canonical encodings noble's ZIP-215 rules accept;
 * an agent signs with noble, whose signatures are canonical (ed25519-verify.test.ts).
 */
export function createNodeEd25519Verify(): Ed25519Verify {
  const keys = new Map<string, KeyObject>();
  const keyObjectOf = (publicKey: Uint8Array): KeyObject => {
    const x = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('base64url');
    let key = keys.get(x);
    if (!key) {
      // A full cache is dropped whole: simpler than an LRU, and a fleet that large re-parses each key once.
      if (keys.size >= MAX_CACHED_KEYS) keys.clear();
      key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
      keys.set(x, key);
    }
    return key;
  };
  return (signature, message, publicKey) => {
    if (publicKey.length !== 32 || signature.length !== 64) return false;
    try {
      return verify(null, message, keyObjectOf(publicKey), signature);
    } catch {
      return false;
    }
  };
}
