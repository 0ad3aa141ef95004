import { describe, expect, it } from 'vitest';
import { judgeUpdateOperations, type OperationState } from '../../bench/support/soak-updates';

/** The soak's update invariant (bench/support/soak-updates.ts): it must be able to fail. */
describe('the soak verdict on update operations', () => {
  const acknowledged = [
    { operationId: 'a', meets: 'hub SIGKILL #1' },
    { operationId: 'b', meets: 'disk full' },
  ];

  it('passes when every acknowledged operation is settled, and counts them per status', () => {
    const states = new Map<string, OperationState>([
      ['a', { status: 'succeeded' }],
      ['b', { status: 'rolled-back' }],
    ]);
    const verdict = judgeUpdateOperations(acknowledged, states);
    expect(verdict.passed).toBe(true);
    expect(verdict.counts).toEqual({ succeeded: 1, 'rolled-back': 1 });
  });

  it('fails on an operation stuck in progress, naming it and the fault it met', () => {
    const states = new Map<string, OperationState>([
      ['a', { status: 'in-progress', phase: 'health-gate' }],
      ['b', { status: 'failed' }],
    ]);
    const verdict = judgeUpdateOperations(acknowledged, states);
    expect(verdict.passed).toBe(false);
    expect(verdict.counts).toEqual({ unsettled: 1, failed: 1 });
    expect(verdict.reason).toContain('a (hub SIGKILL #1): in-progress in health-gate');
  });

  it('fails on a queued operation of the same container that the soak did not ask for', () => {
    const states = new Map<string, OperationState>([
      ['a', { status: 'succeeded' }],
      ['b', { status: 'succeeded' }],
      ['c', { status: 'queued', phase: 'prepare' }],
    ]);
    const verdict = judgeUpdateOperations(acknowledged, states);
    expect(verdict.passed).toBe(false);
    expect(verdict.reason).toContain('c (not requested by the soak): queued in prepare');
  });

  it('fails on an acknowledged operation the hub no longer knows', () => {
    const states = new Map<string, OperationState>([
      ['a', { status: 'succeeded' }],
      ['b', { missing: 'GET /api/v1/update-operations/{id} answered 404' }],
    ]);
    const verdict = judgeUpdateOperations(acknowledged, states);
    expect(verdict.passed).toBe(false);
    expect(verdict.counts).toEqual({ succeeded: 1, missing: 1 });
  });

  it('is not run when no update was acknowledged', () => {
    const verdict = judgeUpdateOperations([], new Map(), ['app-0 1.2.0 (hub SIGKILL #1): not listed']);
    expect(verdict.passed).toBeUndefined();
    expect(verdict.reason).toContain('not listed');
  });
});
