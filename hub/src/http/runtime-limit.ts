import { errorBody } from './http-error';

/** How long a client waits before trying again once the runtime refused work for one of its limits. */
export const RUNTIME_LIMIT_RETRY_SECONDS = 5;

/**
 * workerd's words for a limit of its own, when the error carries no better mark: the subrequest
 * cap, an isolate reset for its memory or CPU, and a QuotaExceededError that crossed an object
 * boundary as a plain Error.
 */
const LIMIT_MESSAGES = [
  /QuotaExceededError/,
  /too many subrequests/i,
  /too many API requests by single (worker )?invocation/i,
  /exceeded (its|the) (memory|cpu)/i,
  /exceeded (memory|cpu) (limit|time)/i,
];
/** A cause chain deeper than this is not one a runtime made; stop rather than loop on a cycle. */
const MAX_DEPTH = 8;

/**
 * True for a refusal by the runtime rather than a fault of the hub (issue 33 item 14): a
 * QuotaExceededError (workerd's 10,000 active timers, storage quota), an overloaded Durable Object
 * (`overloaded`), an infrastructure error the platform says to retry (`retryable`: an object
 * restarting, a connection lost), a subrequest cap, or an isolate reset for memory or CPU. The
 * request may work a moment later, so it answers 503 with Retry-After, never a 500. The core names
 * no runtime type: the marks are read as plain properties, through causes.
 */
export function isRuntimeLimit(error: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || typeof error !== 'object' || error === null) return false;
  const { name, message, overloaded, retryable, cause } = error as {
    name?: unknown;
    message?: unknown;
    overloaded?: unknown;
    retryable?: unknown;
    cause?: unknown;
  };
  if (name === 'QuotaExceededError') return true;
  // workerd marks its own plain Errors; a project error of its own name (a DeliveryError's
  // `retryable`) is not the runtime's refusal.
  if (name === 'Error' && (overloaded === true || retryable === true)) return true;
  if (typeof message === 'string' && LIMIT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  return isRuntimeLimit(cause, depth + 1);
}

/** The answer to a request the runtime refused: 503, the http-interface §2.15 body, Retry-After. */
export function runtimeLimitResponse(): Response {
  return Response.json(runtimeLimitBody(), {
    status: 503,
    headers: { 'Retry-After': String(RUNTIME_LIMIT_RETRY_SECONDS) },
  });
}

export const runtimeLimitBody = () =>
  errorBody(503, 'Service unavailable: the runtime refused this request for one of its limits; retry shortly', {
    reason: 'runtime-limit',
  });
