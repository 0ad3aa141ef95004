import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSignatureVerifier, signBody } from './registry-signature';

const SECRET = 'registry-secret';
const BODY = new TextEncoder().encode('{"events":[{"action":"push"}]}\n');
/** Computed with node:crypto, independently of the Web Crypto code under test. */
const HEX = createHmac('sha256', SECRET).update(BODY).digest('hex');

describe('registry webhook signatures', () => {
  const verifier = createSignatureVerifier(SECRET);

  it('accepts 64 hex digits, sha256=<hex>, and upper-case hex', async () => {
    expect(await verifier.verify(BODY, [HEX])).toBe('valid');
    expect(await verifier.verify(BODY, [`sha256=${HEX}`])).toBe('valid');
    expect(await verifier.verify(BODY, [HEX.toUpperCase()])).toBe('valid');
    expect(await verifier.verify(BODY, [`  sha256=${HEX}  `])).toBe('valid');
  });

  it('accepts the signature in any one of the headers, whatever the others hold', async () => {
    expect(await verifier.verify(BODY, [undefined, 'garbage', undefined, `sha256=${HEX}`, undefined, undefined])).toBe(
      'valid',
    );
  });

  it('tells a missing signature from an invalid one', async () => {
    expect(await verifier.verify(BODY, [undefined, undefined, ''])).toBe('missing');
    expect(await verifier.verify(BODY, ['sha256=00'])).toBe('invalid');
    expect(await verifier.verify(BODY, [`sha1=${HEX}`])).toBe('invalid');
    expect(await verifier.verify(BODY, [`${HEX}00`])).toBe('invalid');
  });

  it('signs the exact bytes: one byte more or another secret fails', async () => {
    const changed = new TextEncoder().encode('{"events":[{"action":"push"}]}');
    expect(await verifier.verify(changed, [HEX])).toBe('invalid');
    expect(await createSignatureVerifier('another').verify(BODY, [HEX])).toBe('invalid');
  });

  it('signBody produces what node:crypto computes', async () => {
    expect(await signBody(SECRET, BODY)).toBe(`sha256=${HEX}`);
  });
});
