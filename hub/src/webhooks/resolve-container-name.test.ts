import { describe, expect, it } from 'vitest';
import { containerRecord } from '../../../test/support/container-fixture';
import { HttpError } from '../http/http-error';
import { resolveContainerName } from './resolve-container-name';

const local = containerRecord({ id: '1'.repeat(64), name: 'web', watcher: 'local' });
const east = containerRecord({ id: '2'.repeat(64), name: 'web', watcher: 'east' });
const nas = containerRecord({ id: '3'.repeat(64), name: 'web', watcher: 'local', agent: 'nas' });
const db = containerRecord({ id: '4'.repeat(64), name: 'db', watcher: 'local', agent: 'nas' });
const all = [local, east, nas, db];

function failure(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('expected an HttpError');
}

describe('resolving a webhook’s container name', () => {
  it('finds a unique name', () => {
    expect(resolveContainerName(all, 'db', {})).toBe(db);
  });

  it('answers 409 for an ambiguous name, listing every agent/watcher pair', () => {
    const error = failure(() => resolveContainerName(all, 'web', {}));
    expect(error.status).toBe(409);
    expect(error.message).toContain('__local__/east, __local__/local, nas/local');
    expect(error.details).toEqual({
      containerName: 'web',
      candidates: [
        { agent: '__local__', watcher: 'east' },
        { agent: '__local__', watcher: 'local' },
        { agent: 'nas', watcher: 'local' },
      ],
    });
  });

  it('narrows by agent (__local__ for the hub’s own) and by watcher', () => {
    expect(resolveContainerName(all, 'web', { agent: 'nas' })).toBe(nas);
    expect(resolveContainerName(all, 'web', { agent: '__local__', watcher: 'east' })).toBe(east);
    expect(resolveContainerName(all, 'web', { watcher: 'east' })).toBe(east);
    expect(failure(() => resolveContainerName(all, 'web', { agent: '__local__' })).status).toBe(409);
    expect(failure(() => resolveContainerName(all, 'web', { watcher: 'local' })).status).toBe(409);
  });

  it('answers 404 when nothing is left, naming the filters', () => {
    const error = failure(() => resolveContainerName(all, 'db', { agent: '__local__' }));
    expect(error.status).toBe(404);
    expect(error.details).toEqual({ containerName: 'db', agent: '__local__' });
    expect(failure(() => resolveContainerName(all, 'nope', {})).status).toBe(404);
  });
});
