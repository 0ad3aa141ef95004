import { describe, expect, it } from 'vitest';
import { decodeChunkBase64 } from './chunk-base64';

describe('chunk base64', () => {
  it('decodes what Buffer encodes, every length and byte value', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + length) % 256);
      expect(decodeChunkBase64(Buffer.from(bytes).toString('base64'))).toEqual(bytes);
    }
    const all = Uint8Array.from({ length: 256 * 3 }, (_, i) => i % 256);
    expect(decodeChunkBase64(Buffer.from(all).toString('base64'))).toEqual(all);
  });

  it('refuses a bad length, alphabet or padding', () => {
    for (const text of ['a', 'abc', 'ab c', 'a-_b', 'YQ=a', '=YQ=', 'Y===', 'YQ==YQ==', 'é123'])
      expect(decodeChunkBase64(text), text).toBeUndefined();
  });

  it('decodes a full chunk quickly', () => {
    const text = Buffer.alloc(1024 * 1024, 7).toString('base64');
    const started = performance.now();
    expect(decodeChunkBase64(text)?.length).toBe(1024 * 1024);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
