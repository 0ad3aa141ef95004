import type { DockerLogLine } from './docker-host';

export interface LogLineStreamOptions {
  /** One line as written to the body, newline included. */
  format(line: DockerLogLine): string;
  /** Lines per enqueued chunk: 1 for a followed log (no chunk may wait for later lines), more for a download. */
  linesPerChunk: number;
  /** The reader left: the caller aborts the Docker stream. */
  onCancel(): void;
  /** The Docker stream failed after the headers went out. */
  onError?(error: unknown): void;
}

/**
 * Container log lines as a byte stream, pulled only as fast as the client reads. `first` is the
 * line already read to learn whether the log opened at all. Used by the hub's log download and the
 * listen-mode agent's log route.
 */
export function logLineStream(
  lines: AsyncIterator<DockerLogLine>,
  first: IteratorResult<DockerLogLine>,
  options: LogLineStreamOptions,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pending: IteratorResult<DockerLogLine> | undefined = first;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = '';
      try {
        for (let i = 0; i < options.linesPerChunk; i++) {
          const result = pending ?? (await lines.next());
          pending = undefined;
          if (result.done) {
            if (text) controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          text += options.format(result.value);
        }
      } catch (error) {
        // Headers are sent: a cut connection is the only way left to say the log is incomplete.
        options.onError?.(error);
        controller.error(error);
        return;
      }
      controller.enqueue(encoder.encode(text));
    },
    async cancel() {
      options.onCancel();
      await lines.return?.();
    },
  });
}
