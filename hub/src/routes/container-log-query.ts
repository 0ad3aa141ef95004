import * as v from 'valibot';
import type { DockerLogLine } from '../../../shared/docker/docker-host';
import { logLineStream } from '../../../shared/docker/log-line-stream';
import { parseIsoInstant } from '../../../shared/update/timestamp';
import type { QueryParam } from '../http/query-params';

// Fractions as Docker takes them (`1700000000.5`); the digit caps keep the number exact.
const UNIX_SECONDS = /^\d{1,11}(?:\.\d{1,9})?$/;

/** Unix seconds of `since`: Unix seconds as given, or an ISO 8601 instant; undefined when neither. */
export function parseSince(text: string): number | undefined {
  if (UNIX_SECONDS.test(text)) return Number(text);
  const ms = parseIsoInstant(text);
  return ms === undefined ? undefined : ms / 1000;
}

/** The `since` parameter of the container log routes (http-interface §4.8): Unix seconds or ISO 8601, default 0 (everything). */
export function qSince(): QueryParam<number> {
  const message = 'must be Unix seconds or an ISO 8601 date-time with a zone, from 1970 on';
  return {
    schema: v.optional(
      v.pipe(
        v.string(),
        v.transform(parseSince),
        v.check((seconds) => seconds !== undefined, message),
      ),
      '0',
    ) as never,
    json: {
      anyOf: [
        { type: 'number', minimum: 0 },
        { type: 'string', format: 'date-time' },
      ],
      default: 0,
    },
    description: 'Only lines from this instant on: Unix seconds or an ISO 8601 date-time',
  };
}

/** True when Accept-Encoding lists gzip without refusing it (`q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((item) => item.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== 'x-gzip') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** A download's file name from the container's name, safe inside a quoted header value. */
export function logFileName(containerName: string): string {
  return `${containerName.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 200) || 'container'}.log`;
}

const LINES_PER_CHUNK = 256;

/**
 * The text of a log download, one line per Docker line, prefixed with Docker's timestamp when asked.
 * Lines are pulled only as fast as the client reads; cancelling (the client left) aborts the Docker
 * stream. `first` is the line already read to learn whether the stream opened at all.
 */
export function logText(
  lines: AsyncIterator<DockerLogLine>,
  first: IteratorResult<DockerLogLine>,
  options: { timestamps: boolean; onCancel: () => void; onError: (error: unknown) => void },
): ReadableStream<Uint8Array> {
  return logLineStream(lines, first, {
    format: (line) => (options.timestamps && line.ts ? `${line.ts} ${line.line}\n` : `${line.line}\n`),
    linesPerChunk: LINES_PER_CHUNK,
    onCancel: options.onCancel,
    onError: options.onError,
  });
}
