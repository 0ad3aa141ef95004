import * as v from 'valibot';

/** One frame of WS /api/v1/containers/{id}/logs/stream (http-interface §4.8); the line may hold ANSI escapes. */
export const ContainerLogFrameSchema = v.object({
  type: v.picklist(['stdout', 'stderr']),
  /** ISO 8601 (RFC 3339 with Docker's nanoseconds). */
  ts: v.string(),
  line: v.string(),
});
export type ContainerLogFrame = v.InferOutput<typeof ContainerLogFrameSchema>;

/** Close codes of the container log stream (http-interface §4.8). */
export const LOG_STREAM_CLOSE = {
  /** The log ended (one-shot fetch, or the followed container stopped), or the client left. */
  normal: 1000,
  /** follow=true on a container that is not running. */
  notRunning: 4001,
  /** Unknown id, or gone from Docker. */
  notFound: 4004,
  /** The watcher is unavailable, or the stream failed. */
  error: 1011,
} as const;
