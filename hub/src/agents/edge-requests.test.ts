import { describe, expect, it } from 'vitest';
import type { HubFrame } from '../../../shared/edge/protocol';
import { ChunkQueue } from './chunk-queue';
import { EdgeRequestError, PendingRequests } from './edge-requests';

function pending() {
  const sent: HubFrame[] = [];
  return { sent, requests: new PendingRequests((frame) => sent.push(frame), 'agent test') };
}

const lastRequestId = (sent: HubFrame[]) => {
  const frame = sent.filter((f) => f.type === 'request').at(-1);
  if (frame?.type !== 'request') throw new Error('no request sent');
  return frame.id;
};

describe('PendingRequests', () => {
  it('settles each request with the reply of its id, once; a second or unknown reply is dropped', async () => {
    const { sent, requests } = pending();
    const first = requests.request({ method: 'log.entries' });
    const firstId = lastRequestId(sent);
    const second = requests.request({ method: 'container.stats', watcher: 'local', containerId: 'c1' });
    const secondId = lastRequestId(sent);
    expect(firstId).not.toBe(secondId);
    expect(
      requests.settle({ type: 'reply', id: secondId, ok: false, error: { code: 'not-found', message: 'gone' } }),
    ).toBe(true);
    expect(requests.settle({ type: 'reply', id: firstId, ok: true, result: { entries: [] } })).toBe(true);
    expect(requests.settle({ type: 'reply', id: firstId, ok: true })).toBe(false);
    expect(requests.settle({ type: 'reply', id: 'zz', ok: true })).toBe(false);
    await expect(first).resolves.toEqual({ entries: [] });
    await expect(second).rejects.toMatchObject({ code: 'not-found' });
    expect(requests.size).toBe(0);
  });

  it('times out, cancels on the wire, and then ignores the late reply', async () => {
    const { sent, requests } = pending();
    const request = requests.request({ method: 'log.entries' }, { timeoutMs: 20 });
    const id = lastRequestId(sent);
    await expect(request).rejects.toMatchObject({ code: 'timeout' });
    expect(sent.at(-1)).toEqual({ type: 'cancel', id });
    expect(requests.settle({ type: 'reply', id, ok: true })).toBe(false);
  });

  it('restarts an idle deadline with each stream frame and hands the lines on', async () => {
    const { sent, requests } = pending();
    const lines: string[] = [];
    const request = requests.request(
      {
        method: 'container.logs',
        watcher: 'local',
        containerId: 'c',
        options: { stdout: true, stderr: true, timestamps: false, follow: false },
      },
      { timeoutMs: 60, idle: true, onStream: (batch) => lines.push(...batch.map((l) => l.line)) },
    );
    const id = lastRequestId(sent);
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(requests.stream({ type: 'stream', id, lines: [{ stream: 'stdout', ts: '', line: `l${i}` }] })).toBe(true);
    }
    requests.settle({ type: 'reply', id, ok: true });
    await expect(request).resolves.toBeUndefined();
    expect(lines).toEqual(['l0', 'l1', 'l2', 'l3']);
  });

  it('cancels when the caller aborts, and fails everything when the session ends', async () => {
    const { sent, requests } = pending();
    const controller = new AbortController();
    const aborted = requests.request({ method: 'log.entries' }, { signal: controller.signal });
    const id = lastRequestId(sent);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'aborted' });
    expect(sent.at(-1)).toEqual({ type: 'cancel', id });
    const waiting = requests.request({ method: 'log.entries' });
    requests.failAll('gone');
    await expect(waiting).rejects.toBeInstanceOf(EdgeRequestError);
    await expect(waiting).rejects.toMatchObject({ code: 'disconnected' });
  });

  it('rejects at once when the frame cannot be sent', async () => {
    const requests = new PendingRequests(() => {
      throw new Error('socket closing');
    }, 'agent test');
    await expect(requests.request({ method: 'log.entries' })).rejects.toMatchObject({ code: 'disconnected' });
    expect(requests.size).toBe(0);
  });
});

describe('PendingRequests: image.export chunks', () => {
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const exportOf = (requests: PendingRequests, queue: ChunkQueue, credit = 2) =>
    requests.request(
      { method: 'image.export', watcher: 'local', imageId: 'sha256:1', credit },
      { chunks: queue, timeoutMs: 1_000, idle: true },
    );
  const decoder = new TextDecoder();

  it('hands chunks on in order and grants credit only as the reader takes them, never before a chunk arrived', async () => {
    const { sent, requests } = pending();
    const queue = new ChunkQueue(2);
    const request = exportOf(requests, queue);
    const id = lastRequestId(sent);
    expect(sent.filter((f) => f.type === 'credit')).toEqual([]);
    expect(requests.chunk({ type: 'chunk', id, seq: 0, data: base64('ab') })).toBeUndefined();
    expect(requests.chunk({ type: 'chunk', id, seq: 1, data: base64('cd') })).toBeUndefined();
    // The window is spent: a third chunk before a grant breaks the protocol.
    const read: string[] = [];
    const reader = queue[Symbol.asyncIterator]();
    read.push(decoder.decode((await reader.next()).value));
    expect(sent.filter((f) => f.type === 'credit')).toEqual([{ type: 'credit', id, chunks: 1 }]);
    expect(requests.chunk({ type: 'chunk', id, seq: 2, data: base64('ef') })).toBeUndefined();
    requests.settle({ type: 'reply', id, ok: true });
    await expect(request).resolves.toBeUndefined();
    queue.end();
    for (let next = await reader.next(); !next.done; next = await reader.next()) read.push(decoder.decode(next.value));
    expect(read.join('')).toBe('abcdef');
  });

  it('closes with 4004 for a chunk out of order, beyond the credit, too large or for a request that is no export', () => {
    const { sent, requests } = pending();
    const outOfOrder = new ChunkQueue(2);
    void exportOf(requests, outOfOrder).catch(() => undefined);
    const first = lastRequestId(sent);
    expect(requests.chunk({ type: 'chunk', id: first, seq: 1, data: base64('x') })).toMatchObject({ code: 4004 });

    void exportOf(requests, new ChunkQueue(1), 1).catch(() => undefined);
    const second = lastRequestId(sent);
    expect(requests.chunk({ type: 'chunk', id: second, seq: 0, data: base64('x') })).toBeUndefined();
    expect(requests.chunk({ type: 'chunk', id: second, seq: 1, data: base64('y') })).toMatchObject({ code: 4004 });

    void exportOf(requests, new ChunkQueue(2)).catch(() => undefined);
    const third = lastRequestId(sent);
    const oversized = Buffer.alloc(1024 * 1024 + 2).toString('base64');
    expect(requests.chunk({ type: 'chunk', id: third, seq: 0, data: oversized })).toMatchObject({ code: 4004 });

    void exportOf(requests, new ChunkQueue(2)).catch(() => undefined);
    const fourth = lastRequestId(sent);
    for (const data of ['ab c', 'a-_b', 'YQ==YQ==', '=YQ=', 'Y==='])
      expect(requests.chunk({ type: 'chunk', id: fourth, seq: 0, data }), data).toMatchObject({ code: 4004 });

    void requests.request({ method: 'log.entries' }).catch(() => undefined);
    expect(requests.chunk({ type: 'chunk', id: lastRequestId(sent), seq: 0, data: base64('x') })).toMatchObject({
      code: 4004,
    });
    requests.failAll('done');
  });

  it('drops a chunk nobody waits for (already on the way when the hub cancelled)', () => {
    const { requests } = pending();
    expect(requests.chunk({ type: 'chunk', id: 'gone', seq: 7, data: base64('x') })).toBeUndefined();
  });
});
