import { describe, expect, it } from 'vitest';
import { isStorageFull } from './storage-full';

const withCode = (code: string) => Object.assign(new Error(`${code}: write`), { code });

describe('isStorageFull', () => {
  it('finds ENOSPC and EDQUOT through causes and a batch AggregateError', () => {
    expect(isStorageFull(withCode('ENOSPC'))).toBe(true);
    expect(isStorageFull(new Error('fs-atomic: cannot write key', { cause: withCode('EDQUOT') }))).toBe(true);
    const batch = new AggregateError([new Error('key a', { cause: withCode('ENOSPC') })], 'key a');
    expect(isStorageFull(new Error('fs-atomic: cannot write 2 keys', { cause: batch }))).toBe(true);
  });

  it('leaves other failures alone, and a cyclic cause chain ends', () => {
    expect(isStorageFull(withCode('EACCES'))).toBe(false);
    expect(isStorageFull('ENOSPC')).toBe(false);
    const cyclic = new Error('a') as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    expect(isStorageFull(cyclic)).toBe(false);
  });
});
