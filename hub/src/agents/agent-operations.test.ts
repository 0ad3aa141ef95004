import { describe, expect, it } from 'vitest';
import type { UpdateOperation } from '../../../shared/update-engine';
import { AgentOperations } from './agent-operations';

const base: UpdateOperation = {
  id: 'op-1',
  kind: 'update',
  source: 'api',
  containerName: 'web',
  containerId: 'a'.repeat(64),
  watcher: 'local',
  agent: 'nas',
  status: 'in-progress',
  phase: 'prepare',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
  targetImage: 'web:2',
};
const at = (second: number, patch: Partial<UpdateOperation> = {}): UpdateOperation => ({
  ...base,
  updatedAt: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
  ...patch,
});

describe('AgentOperations', () => {
  it('hands each report to the watchers of that operation, the known one first, and ignores older replays', () => {
    const operations = new AgentOperations();
    operations.apply(at(1));
    const seen: string[] = [];
    const watching = operations.watch('op-1', (operation) => seen.push(operation.phase));
    operations.apply(at(2, { phase: 'renamed' }));
    operations.apply(at(1, { phase: 'prepare' }));
    watching.close();
    operations.apply(at(3, { phase: 'new-created' }));
    expect(seen).toEqual(['prepare', 'renamed']);
    expect(operations.get('op-1')?.phase).toBe('new-created');
  });

  it('resolves settled() with the terminal report, even one that arrived before the wait began', async () => {
    const operations = new AgentOperations();
    const never = new AbortController().signal;
    const waiting = operations.settled('op-1', never);
    operations.apply(at(2, { phase: 'health-gate' }));
    operations.apply(at(3, { status: 'rolled-back', phase: 'rolled-back' }));
    expect((await waiting)?.status).toBe('rolled-back');
    expect((await operations.settled('op-1', never))?.phase).toBe('rolled-back');
    // Settled is final: a late replay of an earlier phase changes nothing.
    operations.apply(at(4, { status: 'in-progress', phase: 'renamed' }));
    expect(operations.get('op-1')?.status).toBe('rolled-back');
  });

  it('gives up waiting when its signal is aborted', async () => {
    const operations = new AgentOperations();
    const controller = new AbortController();
    const waiting = operations.settled('op-2', controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
  });
});
