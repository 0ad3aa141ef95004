import { describe, expect, it } from 'vitest';
import { DAY_MS, parseTimestamp, toIsoString } from './timestamp';

describe('parseTimestamp', () => {
  it('reads UTC timestamps, zone offsets and date-only values', () => {
    expect(parseTimestamp('2025-03-01T12:00:00Z')).toBe(Date.UTC(2025, 2, 1, 12));
    expect(parseTimestamp('2025-03-01T12:00:00.250Z')).toBe(Date.UTC(2025, 2, 1, 12, 0, 0, 250));
    expect(parseTimestamp('2025-03-01T14:00:00+02:00')).toBe(Date.UTC(2025, 2, 1, 12));
    expect(parseTimestamp('2025-03-01T07:30:00-0430')).toBe(Date.UTC(2025, 2, 1, 12));
    expect(parseTimestamp('2025-03-01t12:00z')).toBe(Date.UTC(2025, 2, 1, 12));
    expect(parseTimestamp('2025-03-01 12:00:00Z')).toBe(Date.UTC(2025, 2, 1, 12));
    expect(parseTimestamp('2025-03-01')).toBe(Date.UTC(2025, 2, 1));
    expect(parseTimestamp('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
  });

  it('keeps millisecond precision of the microsecond and nanosecond dates registries send', () => {
    expect(parseTimestamp('2025-03-01T12:00:00.123456Z')).toBe(Date.UTC(2025, 2, 1, 12, 0, 0, 123));
    expect(parseTimestamp('2025-03-01T12:00:00.123456789Z')).toBe(Date.UTC(2025, 2, 1, 12, 0, 0, 123));
  });

  it.each([
    ['a bare number that Date.parse reads as 2001', '1'],
    ['a day past the end of the month', '2024-02-30'],
    ['February 29th of a common year', '2023-02-29'],
    ['month 13', '2024-13-01'],
    ['hour 24', '2024-05-01T24:00:00Z'],
    ['a zone offset of 25 hours', '2024-05-01T12:00:00+25:00'],
    ['a time without a zone', '2024-05-01T12:00:00'],
    ['free text', 'yesterday'],
    ['the empty string', ''],
    ['the Go zero time', '0001-01-01T00:00:00Z'],
    ['the Unix epoch of reproducible builds', '1970-01-01T00:00:00Z'],
    ['an overlong string', `2024-05-01T12:00:00.${'1'.repeat(80)}Z`],
  ])('refuses %s', (_why, value) => {
    expect(parseTimestamp(value)).toBeUndefined();
  });

  it('reads undefined as undefined', () => {
    expect(parseTimestamp(undefined)).toBeUndefined();
  });

  it('writes the canonical ISO form that it reads back', () => {
    const ms = Date.UTC(2025, 0, 2, 3, 4, 5, 6);
    expect(toIsoString(ms)).toBe('2025-01-02T03:04:05.006Z');
    expect(parseTimestamp(toIsoString(ms))).toBe(ms);
    expect(DAY_MS).toBe(24 * 60 * 60 * 1000);
  });
});
