import { describe, expect, it } from 'vitest';
import { EDGE_METHODS, readRequestFrame } from './read-request';

describe('reading request frames', () => {
  it('knows every method of the schema', () => {
    expect([...EDGE_METHODS].sort()).toEqual([
      'container.logs',
      'container.remove',
      'container.restart',
      'container.start',
      'container.stats',
      'container.stop',
      'container.update',
      'image.export',
      'image.list',
      'image.pull',
      'image.remove',
      'inventory',
      'log.entries',
    ]);
  });

  it('parses a valid request', () => {
    expect(
      readRequestFrame({
        type: 'request',
        id: 'a1',
        request: { method: 'inventory', watcher: 'local', operationId: 'op' },
      }),
    ).toEqual({
      id: 'a1',
      request: { method: 'inventory', watcher: 'local', operationId: 'op' },
    });
  });

  it('answers an unknown method with unsupported and bad fields with invalid', () => {
    expect(readRequestFrame({ type: 'request', id: 'a2', request: { method: 'container.exec' } })).toMatchObject({
      id: 'a2',
      error: { code: 'unsupported' },
    });
    expect(
      readRequestFrame({ type: 'request', id: 'a3', request: { method: 'container.stop', watcher: 'local' } }),
    ).toMatchObject({
      id: 'a3',
      error: { code: 'invalid', message: expect.stringContaining('containerId') },
    });
    expect(readRequestFrame({ type: 'request', id: 'a4', request: 'stop' })).toMatchObject({
      error: { code: 'invalid' },
    });
  });

  it('leaves frames without a usable id, and other frames, to the frame schema', () => {
    expect(
      readRequestFrame({ type: 'request', id: '', request: { method: 'inventory', watcher: 'local' } }),
    ).toBeUndefined();
    expect(readRequestFrame({ type: 'request', id: 'x'.repeat(65), request: {} })).toBeUndefined();
    expect(readRequestFrame({ type: 'ping' })).toBeUndefined();
    expect(readRequestFrame(null)).toBeUndefined();
  });
});
