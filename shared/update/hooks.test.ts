import { describe, expect, it } from 'vitest';
import type { UpdateOperation } from '../update-engine/operation';
import { describeHookResult, hookCommands, hookEnvironment, hookOutcome, hookTimeoutMs } from './hooks';

const operation: UpdateOperation = {
  id: 'op-1',
  kind: 'update',
  source: 'api',
  containerName: 'web',
  containerId: 'c1',
  watcher: 'local',
  agent: 'edge-one',
  status: 'queued',
  phase: 'prepare',
  createdAt: '2026-11-21T00:00:00.000Z',
  updatedAt: '2026-11-21T00:00:00.000Z',
  fromVersion: '1.0.0',
  toVersion: '2.0.0',
  targetImage: 'registry/web:2.0.0',
};

describe('the shared hook logic (hub and edge agents)', () => {
  it('reads the commands of the labels, blank ones as absent', () => {
    expect(hookCommands({})).toBeUndefined();
    expect(hookCommands({ 'dd.hook.pre': '  ', 'dd.hook.post': '' })).toBeUndefined();
    expect(hookCommands({ 'dd.hook.pre': ' echo hi ' })).toEqual({ pre: 'echo hi' });
  });

  it('takes dd.hook.timeout (bare seconds, s, m), else the default, never past an hour', () => {
    expect(hookTimeoutMs({ 'dd.hook.timeout': '30' }, 60_000)).toBe(30_000);
    expect(hookTimeoutMs({ 'dd.hook.timeout': '5m' }, 60_000)).toBe(300_000);
    expect(hookTimeoutMs({ 'dd.hook.timeout': 'soon' }, 60_000)).toBe(60_000);
    expect(hookTimeoutMs({ 'dd.hook.timeout': '0' }, 60_000)).toBe(60_000);
    expect(hookTimeoutMs({ 'dd.hook.timeout': '3h' }, 60_000)).toBe(3_600_000);
  });

  it('gives the command names and versions only, the new container to a post hook', () => {
    expect(hookEnvironment('pre', operation)).toEqual({
      DD_HOOK: 'pre',
      DD_OPERATION_ID: 'op-1',
      DD_CONTAINER_NAME: 'web',
      DD_CONTAINER_ID: 'c1',
      DD_WATCHER: 'local',
      DD_TARGET_IMAGE: 'registry/web:2.0.0',
      DD_FROM_VERSION: '1.0.0',
      DD_TO_VERSION: '2.0.0',
      DD_TRIGGER: '',
    });
    expect(hookEnvironment('post', { ...operation, newContainerId: 'c2' })['DD_NEW_CONTAINER_ID']).toBe('c2');
  });

  it("cuts a failure's detail to 300 characters, keeping why and the output's end", () => {
    const failure = describeHookResult({ exitCode: 7, timedOut: false, output: `${'x'.repeat(400)}END` }, 60_000);
    expect(failure.startsWith('exited with code 7: ')).toBe(true);
    const outcome = hookOutcome(failure);
    expect(outcome.status).toBe('failed');
    expect(outcome.detail).toHaveLength(300);
    expect(outcome.detail?.startsWith('exited with code 7: …')).toBe(true);
    expect(outcome.detail?.endsWith('xEND')).toBe(true);
    expect(hookOutcome(undefined)).toEqual({ status: 'success' });
    expect(describeHookResult({ exitCode: null, timedOut: true, output: '' }, 2_000)).toBe('timed out after 2 s');
  });
});
