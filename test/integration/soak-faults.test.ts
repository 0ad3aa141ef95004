import { describe, expect, it } from 'vitest';
import { runSoak } from '../../bench/support/soak-run';

const MINUTES = 2;

/**
 * The 2-minute soak of `npm run bench -- soak` (bench/support/soak-run.ts): one hub process on an fs
 * store on its own small tmpfs, 100 simulated edge agents in a load-generator process (10 %
 * reconnecting every minute, every tenth with its clock 7 minutes off), a real edge agent on a real
 * dockerd with two containers, one whose registry sits behind a fault proxy (updated once, in its
 * 5xx storm) and one straight from the registry (updated just before each hub SIGKILL, the dockerd
 * restart and the full disk: 5 updates in all), notifications to a receiver that fails every third
 * delivery, continuous API writes, and the faults: the hub SIGKILLed twice, the
 * dockerd restarted, the store's disk filled, the hub's injected clock stepped an hour forward and
 * back. Every invariant is a named check; each must pass. Invariants are counted, never timed: the
 * run is as long on a loaded machine, only the settling at the end may take longer.
 */
describe('soak with faults (2 minutes)', () => {
  it('keeps every invariant', async () => {
    const result = await runSoak({
      durationMs: MINUTES * 60_000,
      agents: 100,
      containersPerAgent: 20,
      realAgents: 1,
      diskMiB: 64,
      settleTimeoutMs: 90_000,
      // About 40 s after warm-up, with the dockerd restart and the full disk inside them, cannot tell a
      // slow leak from warm-up: here the check catches a gross one (half again); the 30-minute
      // `npm run bench -- soak` holds the 10 %.
      growthLimit: 0.5,
      log: () => undefined,
    });
    const failed = result.checks.filter((check) => check.result === 'fail');
    expect(failed, JSON.stringify(result.checks, null, 2)).toEqual([]);
    expect(result.checks.filter((check) => check.result === 'pass').length).toBeGreaterThanOrEqual(5);
    // Not merely "not run": the run's updates were acknowledged and each found settled.
    expect(
      result.checks.find((check) => check.name === 'every update operation ends in a terminal state'),
    ).toMatchObject({ result: 'pass' });
  }, 600_000);
});
