/**
 * The protocol's error for a request the agent cannot serve. In a module of its own because both the
 * request handlers and the update runner they call throw it: kept in the handlers, it made
 * updates/agent-updates.ts and requests/request-handlers.ts import each other.
 */
export type EdgeErrorCode = 'not-found' | 'unsupported' | 'invalid' | 'busy' | 'failed' | 'conflict';

/** A request that cannot be served, with the protocol's error code. */
export class EdgeRequestError extends Error {
  constructor(
    readonly code: EdgeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EdgeRequestError';
  }
}
