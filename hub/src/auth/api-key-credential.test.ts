import { describe, expect, it } from 'vitest';
import {
  digestSecret,
  displayPrefixOf,
  formatCredential,
  generateKeyId,
  generateSecret,
  looksLikeApiKey,
  parseCredential,
} from './api-key-credential';

describe('API key credentials', () => {
  it('generates ddk_<12 of [a-z0-9]>_<32 bytes base64url> and parses it back', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const keyId = generateKeyId();
      const secret = generateSecret();
      expect(keyId).toMatch(/^[a-z0-9]{12}$/);
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      ids.add(keyId);
      expect(parseCredential(formatCredential(keyId, secret))).toEqual({ keyId, secret });
    }
    expect(ids.size).toBe(200);
    expect(displayPrefixOf('abcdefghijkl')).toBe('ddk_abcdefghijkl\u2026');
  });

  it('refuses every other spelling', () => {
    const secret = 'a_b-'.repeat(10).concat('xyz');
    expect(parseCredential(`ddk_abcdefghijkl_${secret}`)).toEqual({ keyId: 'abcdefghijkl', secret });
    for (const bad of [
      'ddk_',
      'ddk_abc',
      `ddk_ABCDEFGHIJKL_${secret}`,
      `ddk_abcdefghijk_${secret}`,
      `ddk_abcdefghijkl_${secret}=`,
      `xdk_abcdefghijkl_${secret}`,
    ]) {
      expect(parseCredential(bad)).toBeUndefined();
    }
    expect(looksLikeApiKey('ddk_anything')).toBe(true);
    expect(looksLikeApiKey('metrics-token')).toBe(false);
  });

  it('digests with SHA-256 in hex', async () => {
    expect(digestSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
