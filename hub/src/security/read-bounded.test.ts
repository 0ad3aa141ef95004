import { describe, expect, it } from 'vitest';
import { readBounded } from './read-bounded';

const body = (sizes: number[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const size of sizes) controller.enqueue(new Uint8Array(size).fill(7));
      controller.close();
    },
  });

describe('the bounded read of an OSV download', () => {
  it('returns the whole body within the bound', async () => {
    expect((await readBounded(new Response(body([3, 4])), 7)).byteLength).toBe(7);
  });

  it('refuses a body that passes the bound while streaming, and one that announces more', async () => {
    await expect(readBounded(new Response(body([5, 5])), 7)).rejects.toThrow('the download passed 7 bytes');
    const announced = new Response(body([1]), { headers: { 'content-length': '100' } });
    await expect(readBounded(announced, 7)).rejects.toThrow('announces 100 bytes');
  });
});
