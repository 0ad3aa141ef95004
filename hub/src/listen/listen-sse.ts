/** One Server-Sent Events message: its `id` (absent when the message has none) and data lines joined. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** A message larger than this ends the stream: an agent never sends one, and the buffer must stay bounded. */
export const MAX_SSE_MESSAGE_BYTES = 8 * 1024 * 1024;

/**
 * The messages of an event stream (the WHATWG format: fields `id`, `event`, `data`; comments and
 * `retry` are skipped), read with Web streams only so it runs on every runtime. `onActivity` is
 * called for every chunk received, comments included: a keepalive is a sign of life too.
 */
export async function* readSseMessages(
  body: ReadableStream<Uint8Array>,
  onActivity: () => void = () => undefined,
): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  // Where the search for the next blank line resumes: text already searched holds none, so a peer
  // dribbling a large message in tiny chunks costs linear, not quadratic, time.
  let searched = 0;
  const blankLine = /\r\n\r\n|\n\n|\r\r/g;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onActivity();
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        // A delimiter may straddle the previous end: back up by its longest length minus one.
        blankLine.lastIndex = Math.max(0, searched - 3);
        const end = blankLine.exec(buffer);
        if (!end) {
          searched = buffer.length;
          break;
        }
        const block = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end[0].length);
        searched = 0;
        const message = parseBlock(block);
        if (message) yield message;
      }
      if (buffer.length > MAX_SSE_MESSAGE_BYTES)
        throw new Error(`an event-stream message exceeds ${MAX_SSE_MESSAGE_BYTES} bytes`);
    }
  } finally {
    // Leaving early (the caller stopped reading) must release the connection.
    reader.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): SseMessage | undefined {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  let hasData = false;
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'id') id = value;
    else if (name === 'event') event = value;
    else if (name === 'data') {
      data.push(value);
      hasData = true;
    }
  }
  // A block without data dispatches nothing (WHATWG): comments-only blocks are keepalives.
  return hasData ? { id, event, data: data.join('\n') } : undefined;
}
