import { describe, expect, it } from 'vitest';
import { edgeKeyId, toBase64 } from '../../../shared/edge/sign-in';
import { AuthorizedKeysError, parseAuthorizedKeys, parseEdgePublicKey } from './authorized-keys';

const raw = (fill: number) => new Uint8Array(32).fill(fill);

describe('parseEdgePublicKey', () => {
  it('accepts the base64 of 32 bytes, padded or not, and derives the key id', () => {
    const key = toBase64(raw(7));
    expect(parseEdgePublicKey(key)).toEqual({ publicKey: key, keyId: edgeKeyId(raw(7)) });
    expect(parseEdgePublicKey(key.replace(/=+$/, ''))?.publicKey).toBe(key);
  });

  it('refuses other lengths, base64url and garbage', () => {
    expect(parseEdgePublicKey(toBase64(new Uint8Array(31)))).toBeUndefined();
    expect(parseEdgePublicKey(toBase64(new Uint8Array(33)))).toBeUndefined();
    expect(parseEdgePublicKey(toBase64(raw(0xfb)).replace(/\+/g, '-').replace(/\//g, '_'))).toBeUndefined();
    expect(parseEdgePublicKey('not a key at all, not at all!!!!!!!!!!!!!!!')).toBeUndefined();
    expect(parseEdgePublicKey('')).toBeUndefined();
  });
});

describe('parseAuthorizedKeys', () => {
  it('reads one key per line with an optional label, skipping blanks and comments; a repeated key counts once', () => {
    const content = [
      '# edge agents',
      '',
      `${toBase64(raw(1))} nas in the attic`,
      `  ${toBase64(raw(2))}`,
      `${toBase64(raw(1))} again`,
      '',
    ].join('\r\n');
    expect(parseAuthorizedKeys(content)).toEqual([
      { publicKey: toBase64(raw(1)), keyId: edgeKeyId(raw(1)), label: 'nas in the attic' },
      { publicKey: toBase64(raw(2)), keyId: edgeKeyId(raw(2)), label: '' },
    ]);
  });

  it('names the line of a bad key', () => {
    const content = `${toBase64(raw(1))} ok\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5 user@host\n`;
    expect(() => parseAuthorizedKeys(content)).toThrow(AuthorizedKeysError);
    expect(() => parseAuthorizedKeys(content)).toThrow(/^line 2: /);
  });

  it('refuses an over-long label', () => {
    expect(() => parseAuthorizedKeys(`${toBase64(raw(1))} ${'x'.repeat(101)}`)).toThrow(/line 1: the label/);
  });
});
