import { describe, expect, it } from 'vitest';
import { MAX_SSE_MESSAGE_BYTES, readSseMessages, type SseMessage } from './listen-sse';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[], onActivity?: () => void): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSseMessages(streamOf(chunks), onActivity)) messages.push(message);
  return messages;
}

describe('readSseMessages', () => {
  it('reads data and id across chunk boundaries, in every line-ending style', async () => {
    const messages = await collect([
      'data: {"type":"dd:ack"',
      ',"data":{}}\n\nid: 7\r\ndata: a\r\n',
      '\r\nid:8\rdata:b\r\r',
    ]);
    expect(messages).toEqual([
      { id: undefined, event: 'message', data: '{"type":"dd:ack","data":{}}' },
      { id: '7', event: 'message', data: 'a' },
      { id: '8', event: 'message', data: 'b' },
    ]);
  });

  it('joins multi-line data, and dispatches nothing for comment-only blocks, though they count as activity', async () => {
    let activity = 0;
    const messages = await collect([': keepalive\n\n', 'event: x\ndata: one\ndata: two\n\n', ': keepalive\n\n'], () => {
      activity += 1;
    });
    expect(messages).toEqual([{ id: undefined, event: 'x', data: 'one\ntwo' }]);
    expect(activity).toBe(3);
  });

  it('drops an unterminated last block and ends the stream on a message beyond the size cap', async () => {
    expect(await collect(['data: a\n\ndata: cut off'])).toEqual([{ id: undefined, event: 'message', data: 'a' }]);
    await expect(collect([`data: ${'x'.repeat(MAX_SSE_MESSAGE_BYTES)}`])).rejects.toThrow(/exceeds/);
  });
});
