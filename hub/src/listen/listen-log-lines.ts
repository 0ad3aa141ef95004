import * as v from 'valibot';
import type { DockerLogLine } from '../../../shared/docker/docker-host';
import { LogLineSchema } from '../../../shared/edge/docker-schemas';
import { EdgeRequestError } from '../agents/edge-requests';

/** A log line longer than this (or an NDJSON line without end) ends the download. */
const MAX_LOG_LINE_BYTES = 1024 * 1024;
/** Log lines handed on per batch at most. */
const LOG_BATCH_LINES = 1000;

/** NDJSON `{stream, ts, line}` lines, handed on in batches as they arrive; each chunk restarts an idle deadline. */
export async function readLogLines(
  response: Response,
  onStream: ((lines: DockerLogLine[]) => void) | undefined,
  rearm: () => void,
): Promise<undefined> {
  if (!response.body) return undefined;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rearm();
      buffer += decoder.decode(value, { stream: true });
      const cut = buffer.lastIndexOf('\n');
      if (cut < 0) {
        if (buffer.length > MAX_LOG_LINE_BYTES) throw new EdgeRequestError('failed', 'a log line exceeds 1 MiB');
        continue;
      }
      const lines = buffer.slice(0, cut).split('\n');
      buffer = buffer.slice(cut + 1);
      const parsed: DockerLogLine[] = [];
      for (const line of lines) {
        if (!line) continue;
        const result = v.safeParse(LogLineSchema, parseJson(line));
        if (!result.success) throw new EdgeRequestError('failed', 'a malformed log line');
        parsed.push(result.output);
      }
      for (let i = 0; i < parsed.length; i += LOG_BATCH_LINES) onStream?.(parsed.slice(i, i + LOG_BATCH_LINES));
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
