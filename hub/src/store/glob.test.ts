import { expect, it } from 'vitest';
import { matchesGlob } from './glob';

it('matches * as any run, ? as one character, everything else literally', () => {
  expect(matchesGlob('web-*', 'web-1')).toBe(true);
  expect(matchesGlob('web-*', 'web-')).toBe(true);
  expect(matchesGlob('web-*', 'api-web-1')).toBe(false);
  expect(matchesGlob('d?', 'db')).toBe(true);
  expect(matchesGlob('d?', 'd')).toBe(false);
  expect(matchesGlob('*/test/*:1.*', '127.0.0.1:5000/test/app:1.0.0')).toBe(true);
  expect(matchesGlob('a.c', 'abc')).toBe(false); // no regex meaning
  expect(matchesGlob('*', '')).toBe(true);
  expect(matchesGlob('**a', 'bba')).toBe(true);
  expect(matchesGlob('a*b*c', 'aXbYc')).toBe(true);
  expect(matchesGlob('a*b*c', 'aXbY')).toBe(false);
});

it('stays fast on a pattern that makes a backtracking regex explode', () => {
  const started = performance.now();
  expect(matchesGlob('*a*a*a*a*a*a*a*a*b', 'a'.repeat(256))).toBe(false);
  expect(performance.now() - started).toBeLessThan(100);
});
