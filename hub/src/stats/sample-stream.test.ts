import { describe, expect, it, vi } from 'vitest';
import { openSampleStream } from './sample-stream';

describe('sample stream', () => {
  it('sends a frame at once and one per interval, and ends after a last frame', async () => {
    let taken = 0;
    const stream = openSampleStream({
      intervalMs: 5,
      next: async () => ({ event: 'tick', data: { n: ++taken }, end: taken === 3 }),
    });
    const text = await new Response(stream).text();
    expect(text).toBe([1, 2, 3].map((n) => `id: ${n}\nevent: tick\ndata: ${JSON.stringify({ n })}\n\n`).join(''));
  });

  it('takes no more samples once the reader cancels', async () => {
    vi.useFakeTimers();
    try {
      let sampled = 0;
      const endless = openSampleStream({ intervalMs: 1_000, next: async () => ({ event: 'tick', data: ++sampled }) });
      const reader = endless.getReader();
      await reader.read();
      await vi.advanceTimersByTimeAsync(1_000);
      await reader.read();
      expect(sampled).toBe(2);
      await reader.cancel();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(sampled).toBe(2);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops when the request signal aborts', async () => {
    const controller = new AbortController();
    let sampled = 0;
    const stream = openSampleStream({
      intervalMs: 1,
      next: async () => ({ event: 'tick', data: ++sampled }),
      signal: controller.signal,
    });
    const reader = stream.getReader();
    await reader.read();
    controller.abort();
    // The loop ends and closes the stream: reading drains what was queued, then reports done.
    for (;;) if ((await reader.read()).done) break;
  });
});
