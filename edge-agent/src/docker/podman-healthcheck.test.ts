import { describe, expect, it } from 'vitest';
import { createHealthcheckDriver, nextHealthcheckAt } from './podman-healthcheck';

const STARTED = '2026-01-01T00:00:00.000000000Z';
const T0 = Date.parse(STARTED);

/** A libpod inspect answer (Podman 4.3's shape) with a check every `intervalMs` and runs ending at `ends`. */
const inspected = (intervalMs: number | undefined, ends: number[] = [], startedAt = STARTED) => ({
  Config: {
    Healthcheck: intervalMs === undefined ? null : { Test: ['CMD', 'true'], Interval: intervalMs * 1_000_000 },
  },
  State: {
    StartedAt: startedAt,
    Health: {
      Status: 'starting',
      Log: ends.length > 0 ? ends.map((end) => ({ End: new Date(end).toISOString() })) : null,
    },
  },
});

describe('nextHealthcheckAt', () => {
  it('is due at once when no check ran since the start, then one interval after the last run', () => {
    expect(nextHealthcheckAt(inspected(1_000))).toBe(0);
    expect(nextHealthcheckAt(inspected(1_000, [T0 + 200, T0 + 1_300]))).toBe(T0 + 2_300);
    // Podman's nanoseconds, as it writes them.
    const raw = inspected(2_000);
    raw.State.Health.Log = [{ End: '2026-01-01T00:00:05.543520764Z' }];
    expect(nextHealthcheckAt(raw)).toBe(T0 + 7_543);
  });

  it('ignores runs of an earlier start (the log outlives a restart)', () => {
    const restarted = new Date(T0 + 60_000).toISOString();
    expect(nextHealthcheckAt(inspected(1_000, [T0 + 500], restarted))).toBe(0);
  });

  it('is never due without a check or with checks disabled (interval 0: its user runs them)', () => {
    expect(nextHealthcheckAt(inspected(undefined))).toBeUndefined();
    expect(nextHealthcheckAt(inspected(0))).toBeUndefined();
  });

  it("reads Podman's older `Healthcheck` state key too, and refuses another shape", () => {
    const { Health, ...state } = inspected(1_000, [T0]).State;
    expect(
      nextHealthcheckAt({ Config: { Healthcheck: { Interval: 1e9 } }, State: { ...state, Healthcheck: Health } }),
    ).toBe(T0 + 1_000);
    expect(() => nextHealthcheckAt({ message: 'no such container' })).toThrow(/libpod inspect: unexpected answer/);
  });
});

describe('createHealthcheckDriver', () => {
  function bed(answer: () => unknown, run: () => Promise<void> = async () => undefined) {
    const runs: string[] = [];
    let clock = T0;
    const driver = createHealthcheckDriver(
      {
        inspectContainer: async () => answer(),
        runHealthcheck: async (id) => {
          runs.push(id);
          await run();
        },
      },
      () => clock,
    );
    return { driver, runs, advance: (ms: number) => (clock += ms) };
  }

  it('runs a due check, and not again until its interval has passed', async () => {
    let ends: number[] = [];
    const { driver, runs, advance } = bed(() => inspected(1_000, ends));
    expect(await driver.runIfDue('web')).toBe(true);
    ends = [T0 + 100];
    advance(500);
    expect(await driver.runIfDue('web')).toBe(false);
    advance(600);
    expect(await driver.runIfDue('web')).toBe(true);
    expect(runs).toEqual(['web', 'web']);
  });

  it('runs one check for callers asking at the same time', async () => {
    let release: () => void = () => undefined;
    const { driver, runs } = bed(
      () => inspected(1_000),
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    const first = driver.runIfDue('web');
    const second = driver.runIfDue('web');
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    expect(await Promise.all([first, second])).toEqual([true, true]);
    expect(runs).toEqual(['web']);
  });

  it('answers false when the container stopped or went meanwhile (the run or the inspect fails)', async () => {
    const stopped = bed(
      () => inspected(1_000),
      async () => {
        throw new Error('(HTTP code 409) conflict - container web is not running');
      },
    );
    expect(await stopped.driver.runIfDue('web')).toBe(false);
    const gone = bed(() => {
      throw new Error('(HTTP code 404) not found');
    });
    expect(await gone.driver.runIfDue('web')).toBe(false);
    expect(gone.runs).toEqual([]);
  });
});
