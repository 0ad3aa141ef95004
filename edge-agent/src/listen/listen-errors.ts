import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import * as v from 'valibot';
import { DockerNotFoundError } from '../../../shared/docker/docker-host';
import type { Logger } from '../../../shared/logging/logger';
import { type EdgeErrorCode, EdgeRequestError } from '../requests/request-error';

/** Thrown in a handler to answer with a JSON error body (http-interface §2.15: `{error, details?}`). */
export class ListenHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ListenHttpError';
  }
}

export function errorJson(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  details?: Record<string, unknown>,
) {
  return c.json(details && Object.keys(details).length > 0 ? { error: message, details } : { error: message }, status);
}

/** The status of each edge error code; `details.code` keeps the code itself (busy and conflict share 409). */
const STATUS_OF_CODE: Record<EdgeErrorCode, ContentfulStatusCode> = {
  'not-found': 404,
  invalid: 400,
  unsupported: 403,
  busy: 409,
  conflict: 409,
  failed: 500,
};

/**
 * The app's onError: our errors as they are, the shared request handlers' EdgeRequestError by its
 * code, Docker's "not found" as 404, anything else 500 (logged, not echoed in full).
 */
export function listenErrorHandler(logger: Logger) {
  return function answerError(error: Error, c: Context) {
    if (error instanceof ListenHttpError) return errorJson(c, error.status, error.message, error.details);
    if (error instanceof EdgeRequestError)
      return errorJson(c, STATUS_OF_CODE[error.code], error.message.slice(0, 300), { code: error.code });
    if (error instanceof DockerNotFoundError) return errorJson(c, 404, error.message);
    logger.warn(`${c.req.method} ${new URL(c.req.url).pathname} failed: ${error.message}`);
    return errorJson(c, 500, 'The agent could not complete the request', { reason: error.message.slice(0, 300) });
  };
}

/** A query or body value checked with its schema; 400 naming the parameter otherwise. */
export function parseOr400<T>(schema: v.GenericSchema<unknown, T>, value: unknown, parameter: string): T {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new ListenHttpError(400, `Invalid ${parameter}: ${result.issues[0]?.message ?? 'invalid value'}`, {
    parameter,
  });
}

/** A request's JSON body; 400 when it is not JSON. */
export async function jsonBody(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new ListenHttpError(400, 'The body must be a JSON object', { parameter: 'body' });
  }
}
