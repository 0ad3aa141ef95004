import { describe, expect, it } from 'vitest';
import {
  displayMaturityLevel,
  evaluateMaturityGate,
  type MaturityGate,
  type MaturityGateInput,
  maturityBlocker,
  maturityCleared,
} from './maturity';
import { DAY_MS } from './timestamp';

const DETECTED = Date.UTC(2025, 0, 10);
const iso = (ms: number) => new Date(ms).toISOString();
const MATURE_7 = { maturityMode: 'mature', maturityMinAgeDays: 7 } as const;

function gate(over: Partial<MaturityGateInput> = {}): MaturityGate {
  return evaluateMaturityGate({ policy: MATURE_7, updateDetectedAt: DETECTED, now: DETECTED, ...over });
}

describe('evaluateMaturityGate', () => {
  it('has no gate when maturityMode is absent or all', () => {
    expect(gate({ policy: {} })).toEqual({ state: 'applicable', clockStartedAt: DETECTED });
    expect(gate({ policy: { maturityMode: 'all', maturityMinAgeDays: 30 } })).toEqual({
      state: 'applicable',
      clockStartedAt: DETECTED,
    });
  });

  it('holds until the update is exactly minAgeDays old, then lets it through', () => {
    const liftableAt = DETECTED + 7 * DAY_MS;
    expect(gate({ now: liftableAt - 1 })).toEqual({ state: 'held', clockStartedAt: DETECTED, liftableAt });
    expect(gate({ now: liftableAt })).toEqual({ state: 'applicable', clockStartedAt: DETECTED, liftableAt });
    expect(gate({ now: liftableAt + DAY_MS }).state).toBe('applicable');
  });

  it('uses 7 days when the minimum age is not set', () => {
    const policy = { maturityMode: 'mature' } as const;
    expect(gate({ policy, now: DETECTED + 7 * DAY_MS - 1 }).state).toBe('held');
    expect(gate({ policy, now: DETECTED + 7 * DAY_MS }).state).toBe('applicable');
  });

  it('honours other minimum ages at their boundary', () => {
    expect(gate({ policy: { maturityMode: 'mature', maturityMinAgeDays: 1 }, now: DETECTED + DAY_MS }).state).toBe(
      'applicable',
    );
    const policy = { maturityMode: 'mature', maturityMinAgeDays: 365 } as const;
    expect(gate({ policy, now: DETECTED + 365 * DAY_MS - 1 }).state).toBe('held');
  });

  it('starts the clock at an earlier trusted publication date', () => {
    const published = DETECTED - 5 * DAY_MS;
    const result = gate({ publishedAt: iso(published), publishedAtTrusted: true, now: DETECTED + 2 * DAY_MS });
    expect(result).toEqual({ state: 'applicable', clockStartedAt: published, liftableAt: published + 7 * DAY_MS });
  });

  it('keeps updateDetectedAt when the trusted date is later than detection', () => {
    expect(
      gate({ publishedAt: iso(DETECTED + DAY_MS), publishedAtTrusted: true, now: DETECTED + 2 * DAY_MS })
        .clockStartedAt,
    ).toBe(DETECTED);
  });

  it('ignores an untrusted publication date even when it is earlier', () => {
    const old = iso(DETECTED - 100 * DAY_MS);
    expect(gate({ publishedAt: old }).clockStartedAt).toBe(DETECTED);
    expect(gate({ publishedAt: old, publishedAtTrusted: false })).toEqual({
      state: 'held',
      clockStartedAt: DETECTED,
      liftableAt: DETECTED + 7 * DAY_MS,
    });
  });

  it('discards a trusted date that is in the future', () => {
    const now = DETECTED + DAY_MS;
    expect(gate({ publishedAt: iso(now + 1), publishedAtTrusted: true, now }).clockStartedAt).toBe(DETECTED);
    // A date exactly at now is not in the future (detection stamped by a host whose clock runs ahead).
    expect(
      gate({ updateDetectedAt: DETECTED + DAY_MS, publishedAt: iso(DETECTED), publishedAtTrusted: true, now: DETECTED })
        .clockStartedAt,
    ).toBe(DETECTED);
  });

  it.each([['garbage'], ['2025-02-30T00:00:00Z'], ['1'], ['0001-01-01T00:00:00Z'], ['']])(
    'discards the unparseable trusted date %j',
    (publishedAt) => {
      expect(gate({ publishedAt, publishedAtTrusted: true })).toEqual({
        state: 'held',
        clockStartedAt: DETECTED,
        liftableAt: DETECTED + 7 * DAY_MS,
      });
    },
  );
});

describe('maturityBlocker', () => {
  it('blocks a held update with the ISO time it lifts', () => {
    expect(maturityBlocker(gate({ now: DETECTED + DAY_MS }))).toEqual({
      reason: 'maturity-not-reached',
      liftableAt: iso(DETECTED + 7 * DAY_MS),
    });
  });

  it('does not block an applicable update, gated or not', () => {
    expect(maturityBlocker(gate({ now: DETECTED + 7 * DAY_MS }))).toBeUndefined();
    expect(maturityBlocker(gate({ policy: {} }))).toBeUndefined();
  });
});

describe('maturityCleared', () => {
  const held = gate({ now: DETECTED + DAY_MS });
  const aged = gate({ now: DETECTED + 7 * DAY_MS });

  it('fires once as the gate moves from held to applicable by age', () => {
    const evaluations = [0, 3, 6.99, 7, 8, 30].map((days) => gate({ now: DETECTED + days * DAY_MS }));
    const fired = evaluations.map((current, i) => maturityCleared(evaluations[i - 1], current));
    expect(fired).toEqual([false, false, false, true, false, false]);
  });

  it('does not fire without a held state before, nor while still held', () => {
    expect(maturityCleared(undefined, aged)).toBe(false);
    expect(maturityCleared(aged, aged)).toBe(false);
    expect(maturityCleared(held, held)).toBe(false);
    expect(maturityCleared(held, undefined)).toBe(false);
  });

  it('does not fire when the gate is switched off rather than outgrown', () => {
    expect(maturityCleared(held, gate({ policy: {}, now: DETECTED + DAY_MS }))).toBe(false);
  });

  it('fires when a lower minimum age releases the held update', () => {
    expect(
      maturityCleared(
        held,
        gate({ policy: { maturityMode: 'mature', maturityMinAgeDays: 1 }, now: DETECTED + DAY_MS }),
      ),
    ).toBe(true);
  });
});

describe('displayMaturityLevel', () => {
  const SEEN = Date.UTC(2025, 0, 1);
  const level = (ageMs: number, over: Partial<Parameters<typeof displayMaturityLevel>[0]> = {}) =>
    displayMaturityLevel({ firstSeenAt: SEEN, now: SEEN + ageMs, gateHeld: false, ...over });

  it('is hot below the threshold and mature from exactly the threshold', () => {
    expect(level(0)).toBe('hot');
    expect(level(7 * DAY_MS - 1)).toBe('hot');
    expect(level(7 * DAY_MS)).toBe('mature');
  });

  it('is mature up to exactly 30 days and established after', () => {
    expect(level(30 * DAY_MS)).toBe('mature');
    expect(level(30 * DAY_MS + 1)).toBe('established');
  });

  it('uses the configured threshold, and the default for a value that is not an integer above 0', () => {
    expect(level(2 * DAY_MS, { thresholdDays: 2 })).toBe('mature');
    expect(level(2 * DAY_MS, { thresholdDays: 0 })).toBe('hot');
    expect(level(7 * DAY_MS, { thresholdDays: -3 })).toBe('mature');
    expect(level(7 * DAY_MS, { thresholdDays: 2.5 })).toBe('mature');
  });

  it('has no mature band when the threshold exceeds 30 days', () => {
    expect(level(40 * DAY_MS, { thresholdDays: 45 })).toBe('hot');
    expect(level(45 * DAY_MS, { thresholdDays: 45 })).toBe('established');
  });

  it('counts from an earlier publication date, trusted or not', () => {
    expect(level(DAY_MS, { publishedAt: iso(SEEN - 40 * DAY_MS) })).toBe('established');
  });

  it('ignores a publication date that is later, in the future or unparseable', () => {
    expect(level(DAY_MS, { publishedAt: iso(SEEN + DAY_MS / 2) })).toBe('hot');
    expect(level(8 * DAY_MS, { publishedAt: iso(SEEN + 9 * DAY_MS) })).toBe('mature');
    expect(level(DAY_MS, { publishedAt: '1970-01-01T00:00:00Z' })).toBe('hot');
    expect(level(DAY_MS, { publishedAt: 'last year' })).toBe('hot');
  });

  it('shows no level while the gate holds the update', () => {
    expect(level(40 * DAY_MS, { gateHeld: true })).toBeUndefined();
  });
});
