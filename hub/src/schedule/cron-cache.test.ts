import { describe, expect, it } from 'vitest';
import { CronCache } from './cron-cache';
import { nextRunOf } from './recurrence';

describe('CronCache', () => {
  it('parses an expression once and shares it; an invalid one throws every time and is not kept', () => {
    const crons = new CronCache();
    expect(crons.of('*/5 * * * *')).toBe(crons.of('*/5 * * * *'));
    expect(crons.of('0 * * * *')).not.toBe(crons.of('*/5 * * * *'));
    expect(() => crons.of('not a cron')).toThrow();
    expect(() => crons.of('not a cron')).toThrow();
  });

  it('gives jobs sharing a parsed expression the next runs each would compute alone', () => {
    const shared = new CronCache();
    const from = Date.UTC(2026, 10, 27, 8, 59, 30);
    for (const cron of ['*/5 * * * *', '0 3 * * 1', '30 */2 * * *']) {
      const alone = nextRunOf({ cron }, () => 0);
      const first = nextRunOf({ cron }, () => 0, shared);
      const second = nextRunOf({ cron }, () => 0, shared);
      // Interleaved calls from other instants leave no state behind.
      expect(second(from + 86_400_000)).toBe(alone(from + 86_400_000));
      expect(first(from)).toBe(alone(from));
      expect(second(from)).toBe(alone(from));
    }
  });
});
