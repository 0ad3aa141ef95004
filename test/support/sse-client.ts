/** One Server-Sent Events frame as received; `raw` is its exact text, for wire-form checks. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
  raw: string;
  /** performance.now() when the frame was parsed, for latency figures. */
  receivedAt: number;
}

/** Splits an SSE byte stream into frames (the WHATWG event-stream format, minus `retry`). */
export class SseParser {
  private buffer = '';

  push(text: string): SseEvent[] {
    this.buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r\n\r\n|\n\n|\r\r/.exec(this.buffer);
      if (!match) return events;
      const block = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = parseBlock(block, block + match[0]);
      if (event) events.push(event);
    }
  }
}

function parseBlock(block: string, raw: string): SseEvent | undefined {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    fields++;
    if (name === 'id') id = value;
    else if (name === 'event') event = value;
    else if (name === 'data') data.push(value);
  }
  return fields === 0 ? undefined : { id, event, data: data.join('\n'), raw, receivedAt: performance.now() };
}

export interface SseStream {
  response: Response;
  /** The next frame, whatever its type. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** The next frame of this type; frames of other types before it are dropped. */
  nextOfType(type: string, timeoutMs?: number): Promise<SseEvent>;
  /** Settles when the server ends the stream: `done` for a clean end, `error` for a cut connection. */
  ended: Promise<'done' | 'error'>;
  /** Disconnects, as a browser tab closing would. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 5_000;

/** Reads a streaming Response (app.request or real fetch alike) frame by frame. */
export function readSse(response: Response): SseStream {
  if (!response.body) throw new Error('sse: the response has no body');
  const reader = response.body.getReader();
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const queue: SseEvent[] = [];
  let wake: (() => void) | undefined;
  let finished: 'done' | 'error' | undefined;

  const ended = (async (): Promise<'done' | 'error'> => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'done';
        queue.push(...parser.push(decoder.decode(value, { stream: true })));
        wake?.();
      }
    } catch {
      return 'error';
    }
  })().then((how) => {
    finished = how;
    wake?.();
    return how;
  });

  async function next(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<SseEvent> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const event = queue.shift();
      if (event) return event;
      if (finished) throw new Error(`sse: the stream ended (${finished}) before the next event`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`sse: no event within ${timeoutMs} ms`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
      wake = undefined;
    }
  }

  return {
    response,
    next,
    async nextOfType(type, timeoutMs = DEFAULT_TIMEOUT_MS) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const event = await next(Math.max(1, deadline - performance.now()));
        if (event.event === type) return event;
      }
    },
    ended,
    async close() {
      await reader.cancel().catch(() => undefined);
      await ended;
    },
  };
}

export type RequestFn = (path: string, init?: RequestInit) => Promise<Response>;

/** Opens a stream and checks it is one; any other answer fails with its status and body. */
export async function openSse(
  request: RequestFn,
  path: string,
  headers: Record<string, string> = {},
): Promise<SseStream> {
  const response = await request(path, { headers: { accept: 'text/event-stream', ...headers } });
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(
      `sse: ${path} answered ${response.status} ${response.headers.get('content-type')}: ${await response.text()}`,
    );
  }
  return readSse(response);
}

export function dataOf<T = Record<string, unknown>>(event: SseEvent): T {
  return JSON.parse(event.data) as T;
}
