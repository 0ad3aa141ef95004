import { encodeSseFrame } from '../events/sse-frame';

export interface SampleFrame {
  event: string;
  data: unknown;
  /** The last frame: the stream closes after it. */
  end?: boolean;
}

export interface SampleStreamOptions {
  /** From the start of one sample to the start of the next (a slow sample shortens the wait, never stacks). */
  intervalMs: number;
  /** Takes the next sample; must not throw (failures are frames too). */
  next: () => Promise<SampleFrame>;
  /** The request's signal, for runtimes that report a vanished client there rather than by cancel. */
  signal?: AbortSignal | undefined;
}

// Frames a client may leave unread (minutes at the usual interval) before it is cut off.
const MAX_UNREAD_FRAMES = 100;

/**
 * An SSE stream of periodic samples: the first at once, then one per interval, until the client
 * leaves. Samples are taken only while somebody reads; a plain ReadableStream, so any runtime serves it.
 */
export function openSampleStream(options: SampleStreamOptions): ReadableStream<Uint8Array> {
  const { signal } = options;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    wake?.();
    signal?.removeEventListener('abort', stop);
  };

  async function run(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (let counter = 1; !stopped; counter++) {
      const began = Date.now();
      const frame = await options.next();
      if (stopped) break;
      if ((controller.desiredSize ?? 0) < -MAX_UNREAD_FRAMES) {
        stop();
        controller.error(new Error('stats stream: the client stopped reading'));
        return;
      }
      controller.enqueue(encodeSseFrame(String(counter), frame.event, frame.data));
      if (frame.end) {
        stop();
        controller.close();
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, Math.max(0, options.intervalMs - (Date.now() - began)));
      });
    }
    try {
      controller.close();
    } catch {
      // Cancelled by the reader: nothing is left to close.
    }
  }

  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (signal?.aborted) return stop();
      signal?.addEventListener('abort', stop, { once: true });
      run(controller).catch((error: unknown) => {
        stop();
        controller.error(error);
      });
    },
    cancel: stop,
  });
}
