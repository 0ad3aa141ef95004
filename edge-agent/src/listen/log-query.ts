import * as v from 'valibot';
import type { DockerLogLine } from '../../../shared/docker/docker-host';
import { logLineStream } from '../../../shared/docker/log-line-stream';
import { LOG_LEVELS } from '../../../shared/schemas/log-entry';
import { parseIsoInstant } from '../../../shared/update/timestamp';
import { ListenHttpError, parseOr400 } from './listen-errors';

const bool = (fallback: boolean) =>
  v.optional(
    v.pipe(
      v.string(),
      v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
      v.transform((text) => text === 'true' || text === '1'),
    ),
    String(fallback),
  );

const integer = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,16}$/, 'must be an integer'),
    v.transform(Number),
    v.minValue(min),
    v.maxValue(max),
  );

// Unix seconds as Docker takes them (`1700000000.5`), or an ISO 8601 instant: as the hub's logs route.
const UNIX_SECONDS = /^\d{1,11}(?:\.\d{1,9})?$/;
const since = v.optional(
  v.pipe(
    v.string(),
    v.transform((text) => (UNIX_SECONDS.test(text) ? Number(text) : (parseIsoInstant(text) ?? Number.NaN) / 1000)),
    v.check((seconds) => !Number.isNaN(seconds), 'must be Unix seconds or an ISO 8601 date-time with a zone'),
  ),
  '0',
);

/**
 * GET /api/containers/{id}/logs: the hub's container logs query (stdout, stderr, since, tail,
 * timestamps), and this agent's additions for the hub's log streams: `follow`, `format=jsonl`
 * (one `{stream, ts, line}` per line: the text form loses which stream a line came from), and
 * `watcher` (which watcher reaches the container).
 */
export interface ContainerLogQuery {
  stdout: boolean;
  stderr: boolean;
  since: number;
  tail: number;
  timestamps: boolean;
  follow: boolean;
  format: 'text' | 'jsonl';
  watcher: string | undefined;
}

export function parseContainerLogQuery(query: Record<string, string>): ContainerLogQuery {
  const parsed: ContainerLogQuery = {
    stdout: parseOr400(bool(true), query.stdout, 'stdout'),
    stderr: parseOr400(bool(true), query.stderr, 'stderr'),
    since: parseOr400(since, query.since, 'since'),
    tail: parseOr400(v.optional(integer(0, 100_000), '1000'), query.tail, 'tail'),
    timestamps: parseOr400(bool(true), query.timestamps, 'timestamps'),
    follow: parseOr400(bool(false), query.follow, 'follow'),
    format: parseOr400(
      v.optional(v.picklist(['text', 'jsonl'], 'must be text or jsonl'), 'text'),
      query.format,
      'format',
    ),
    watcher: parseOr400(v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]*$/))), query.watcher, 'watcher'),
  };
  if (!parsed.stdout && !parsed.stderr)
    throw new ListenHttpError(400, 'Choose at least one of stdout and stderr', { parameter: 'stdout' });
  return parsed;
}

/** GET /api/log/entries: http-interface §4.5 (`since` in Unix milliseconds), the hub's limits. */
export function parseLogEntriesQuery(query: Record<string, string>) {
  return {
    level: parseOr400(
      v.optional(v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`)),
      query.level,
      'level',
    ),
    component: parseOr400(
      v.optional(
        v.pipe(
          v.string(),
          v.maxLength(100),
          v.regex(/^[A-Za-z0-9._:/-]+$/, 'may hold only letters, digits and . _ : / -'),
        ),
      ),
      query.component,
      'component',
    ),
    tail: parseOr400(v.optional(integer(0, 1000), '100'), query.tail, 'tail'),
    since: parseOr400(v.optional(integer(0, Number.MAX_SAFE_INTEGER)), query.since, 'since'),
  };
}

/**
 * The log as a byte stream, pulled only as fast as the client reads; cancelling (the client left)
 * aborts the Docker stream. A followed log goes out line by line (a chunk must not wait for lines
 * that come later); a download in chunks of 256 lines.
 */
export function logBody(
  lines: AsyncIterator<DockerLogLine>,
  first: IteratorResult<DockerLogLine>,
  format: (line: DockerLogLine) => string,
  onCancel: () => void,
  linesPerChunk: number,
): ReadableStream<Uint8Array> {
  return logLineStream(lines, first, { format, onCancel, linesPerChunk });
}
