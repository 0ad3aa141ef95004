import { describe, expect, it } from 'vitest';
import { sameJson } from './same-json';

describe('sameJson', () => {
  it('says what comparing the JSON texts said, without their key order', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'y' }] })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ a: [] }, { a: {} })).toBe(false);
    expect(sameJson({ a: null }, { a: undefined })).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
  });

  it('takes an undefined key for an absent one, as JSON does', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 0 })).toBe(false);
    expect(sameJson({ a: 1, b: 0 }, { a: 1 })).toBe(false);
  });

  it('leaves out the top-level keys it is told to', () => {
    const ignore = new Set(['checkedAt']);
    expect(sameJson({ a: 1, checkedAt: 'x' }, { a: 1, checkedAt: 'y' }, ignore)).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, checkedAt: 'y' }, ignore)).toBe(true);
    expect(sameJson({ a: { checkedAt: 1 } }, { a: { checkedAt: 2 } }, ignore)).toBe(false);
  });
});
