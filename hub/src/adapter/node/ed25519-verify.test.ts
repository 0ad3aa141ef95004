import { describe, expect, it } from 'vitest';
import { fromBase64Url, generateEdgeKeyPair, signChallenge, signInMessage } from '../../../../shared/edge/sign-in';
import { nobleEd25519Verify } from '../../edge/sign-in-check';
import { createNodeEd25519Verify } from './ed25519-verify';

const flip = (bytes: Uint8Array, index: number) => {
  const copy = bytes.slice();
  copy[index] = (copy[index] as number) ^ 1;
  return copy;
};

describe('node:crypto Ed25519 verification', () => {
  it('agrees with @noble/ed25519 on signatures agents make, and on every tampered one', async () => {
    const nodeVerify = createNodeEd25519Verify();
    for (let i = 0; i < 20; i++) {
      const { secretKey, publicKey } = await generateEdgeKeyPair();
      const message = signInMessage(`challenge-${i}`, 'edge/1.0', `key-${i}`, `agent-${i}`);
      const signature = fromBase64Url(
        await signChallenge(secretKey, `challenge-${i}`, 'edge/1.0', `key-${i}`, `agent-${i}`),
      ) as Uint8Array;
      const cases: [Uint8Array, Uint8Array, Uint8Array, boolean][] = [
        [signature, message, publicKey, true],
        [flip(signature, i % 64), message, publicKey, false],
        [signature, flip(message, i % message.length), publicKey, false],
        [signature, message, flip(publicKey, i % 32), false],
      ];
      for (const [sig, msg, key, expected] of cases) {
        expect(nodeVerify(sig, msg, key)).toBe(expected);
        expect(nobleEd25519Verify(sig, msg, key)).toBe(expected);
      }
      // The parsed key is cached: the same key verifies again.
      expect(nodeVerify(signature, message, publicKey)).toBe(true);
    }
  });

  it('answers false, never throws, for malformed lengths and keys that are no curve point', async () => {
    const nodeVerify = createNodeEd25519Verify();
    const { publicKey } = await generateEdgeKeyPair();
    expect(nodeVerify(new Uint8Array(63), new Uint8Array(1), publicKey)).toBe(false);
    expect(nodeVerify(new Uint8Array(64), new Uint8Array(1), publicKey.slice(0, 31))).toBe(false);
    expect(nodeVerify(new Uint8Array(64), new Uint8Array(1), new Uint8Array(32).fill(0xff))).toBe(false);
    expect(nodeVerify(new Uint8Array(64), new Uint8Array(0), publicKey)).toBe(false);
  });
});
