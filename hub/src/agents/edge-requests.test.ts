import { describe, expect, it } from 'vitest';
import type { HubFrame } from '../../../shared/edge/protocol';
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
