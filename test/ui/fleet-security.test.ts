import { describe, expect, it } from 'vitest';
import { bySeverity, countsWords, fleetCounts, updateWords } from '../../ui/src/views/security/fleet-security';
import type { ImageFindings } from '../../ui/src/views/security/security-api';

const counts = (over: Partial<ImageFindings['summary']> = {}) => ({
  critical: 0,
  high: 0,
  medium: 0,
  low: 0,
  unknown: 0,
  ...over,
});
const image = (name: string, over: Partial<ImageFindings> = {}): ImageFindings => ({
  image: name,
  containerIds: ['a'],
  scannedAt: '2026-12-01T00:00:00.000Z',
  summary: counts(),
  vulnerabilities: [],
  ...over,
});

describe('the fleet security view’s arithmetic', () => {
  it('adds each image once and orders images worst first', () => {
    const images = [
      image('b', { summary: counts({ high: 3 }) }),
      image('a', { summary: counts({ critical: 1 }) }),
      image('c', { summary: counts({ high: 3, low: 1 }) }),
      image('d'),
    ];
    expect(fleetCounts(images)).toEqual(counts({ critical: 1, high: 6, low: 1 }));
    expect(bySeverity(images).map((entry) => entry.image)).toEqual(['a', 'c', 'b', 'd']);
  });

  it('says what an update fixes and brings, or the update image’s own counts when the running one was not scanned', () => {
    expect(
      updateWords(
        image('a', { summary: counts({ critical: 1 }), update: { image: 'a:2', summary: counts({ high: 1 }) } }),
      ),
    ).toBe('fixes 1 critical; brings 1 high');
    expect(updateWords(image('a', { update: { image: 'a:2', summary: counts() } }))).toBe('changes no count');
    expect(updateWords(image('a', { scannedAt: null, update: { image: 'a:2', summary: counts({ medium: 2 }) } }))).toBe(
      "the update's image: 2 medium",
    );
    expect(updateWords(image('a'))).toBeUndefined();
    expect(countsWords(counts())).toBe('no known vulnerability');
  });
});
