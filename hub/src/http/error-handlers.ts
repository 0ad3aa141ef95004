import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { errorBody, HttpError } from './http-error';
import type { HubEnv } from './hub-env';
import { clip } from './route-group';
import type { RouteTable } from './route-table';
import { isRuntimeLimit, RUNTIME_LIMIT_RETRY_SECONDS, runtimeLimitBody } from './runtime-limit';
import { isStorageFull } from './storage-full';

/** How long a client waits before trying a write again once the store said it was full. */
const STORAGE_FULL_RETRY_SECONDS = 30;

/** Unknown paths give 404; known paths with another method give 405 with Allow. */
export function notFoundOrMethodNotAllowed(routes: RouteTable): NotFoundHandler<HubEnv> {
  return (c) => {
    const allowed = routes.allowedMethods(c.req.path);
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return c.json(errorBody(405, `${c.req.method} is not allowed on this path`, { allowed }), 405);
    }
    return c.json(errorBody(404, `No route for ${clip(c.req.method)} ${clip(c.req.path)}`), 404);
  };
}

/** Every error leaves as an http-interface §2.15 JSON body; unexpected ones are logged, never echoed. */
export function jsonErrorHandler(logger: Logger): ErrorHandler<HubEnv> {
  return (error, c: Context<HubEnv>) => {
    if (error instanceof HttpError) {
      for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
      return c.json(errorBody(error.status, error.message, error.details), error.status as ContentfulStatusCode);
    }
    if (error instanceof HTTPException) {
      const status = error.status as ContentfulStatusCode;
      return c.json(errorBody(status, status < 500 ? error.message || undefined : undefined), status);
    }
    if (c.req.raw.signal.aborted) {
      // The client went away mid-request (nginx's 499): nobody will read an answer, and it is not our failure.
      logger.debug('client closed the request', { requestId: c.get('requestId'), route: c.get('route') });
      return c.json(errorBody(499, 'Client closed the request'), 499 as ContentfulStatusCode);
    }
    if (isStorageFull(error)) {
      // The disk, not the request, is at fault: 507 says so, and the write was refused whole (each
      // record is replaced atomically). The hub needs no restart: the next write after space returns succeeds.
      logger.warn('store full: write refused', { requestId: c.get('requestId'), route: c.get('route') });
      c.header('Retry-After', String(STORAGE_FULL_RETRY_SECONDS));
      return c.json(
        errorBody(507, 'Insufficient storage: the store has no space left; nothing was written', {
          reason: 'storage-full',
        }),
        507 as ContentfulStatusCode,
      );
    }
    if (isRuntimeLimit(error)) {
      // The runtime, not the hub, refused (workerd's timers, an overloaded object): worth a retry.
      logger.warn('runtime limit: request refused', {
        requestId: c.get('requestId'),
        route: c.get('route'),
        error: errorMessage(error),
      });
      c.header('Retry-After', String(RUNTIME_LIMIT_RETRY_SECONDS));
      return c.json(runtimeLimitBody(), 503);
    }
    logger.error('unhandled error in request', {
      requestId: c.get('requestId'),
      route: c.get('route'),
      method: c.req.method,
      error: errorMessage(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return c.json(errorBody(500), 500);
  };
}
