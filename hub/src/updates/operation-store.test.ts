import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { UpdateOperation } from '../../../shared/update-engine';
import { createUpdateOperationStore, SupersededOperationError } from './operation-store';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const operation = (over: Partial<UpdateOperation> = {}): UpdateOperation => ({
  id: 'op-1',
  kind: 'update',
  source: 'api',
  containerName: 'web',
  containerId: 'a'.repeat(64),
  watcher: 'local',
  status: 'in-progress',
  phase: 'renamed',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
  targetImage: 'web:2',
  ...over,
});

describe('the update journal', () => {
  it('keeps every write, reloads them validated, and lists the unsettled ones oldest first', async () => {
    const storage = createStorage();
    const store = createUpdateOperationStore(storage, logger);
    await store.save(operation({ id: 'b', createdAt: '2026-01-02T00:00:00.000Z' }));
    await store.save(operation({ id: 'a' }));
    await storage.setItem('update-operations:broken', { id: 'broken' });
    const reloaded = createUpdateOperationStore(storage, logger);
    await reloaded.load();
    expect(reloaded.all().map((op) => op.id)).toEqual(['b', 'a']);
    expect(reloaded.unsettled().map((op) => op.id)).toEqual(['a', 'b']);
  });

  it('refuses any write to a settled operation: a superseded run never writes later (http-interface §3.2)', async () => {
    const store = createUpdateOperationStore(createStorage(), logger);
    await store.save(operation({ status: 'rolled-back', phase: 'rolled-back', rollbackReason: 'cancelled' }));
    await expect(store.save(operation({ phase: 'new-created' }))).rejects.toBeInstanceOf(SupersededOperationError);
    expect(store.get('op-1')).toMatchObject({ status: 'rolled-back' });
  });
});
