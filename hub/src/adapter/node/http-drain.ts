import type { RequestListener, Server, ServerResponse } from 'node:http';
import { errorBody } from '../../http/http-error';

/**
 * The HTTP side of a shutdown (docs/operations.md "Shutdown"). Requests in flight are counted;
 * once draining, the listener is closed, every answer closes its connection, and a request that
 * still arrives on a kept-alive connection gets a JSON 503 (http-interface §2.15) instead of a reset.
 */
export interface HttpDrain {
  /** Wraps the server's request listener, to count and to refuse. */
  listener(next: RequestListener): RequestListener;
  /**
   * Stops accepting connections; resolves once every request in flight has been answered, or
   * after `ms`. Event streams never end on their own, so they are not waited for: the shutdown
   * ends them with the remaining connections.
   */
  drain(server: Server, ms: number): Promise<void>;
}

const RETRY_AFTER_SECONDS = '5';

function isStream(response: ServerResponse): boolean {
  return String(response.getHeader('content-type') ?? '').startsWith('text/event-stream');
}

function answerShuttingDown(response: ServerResponse): void {
  const body = JSON.stringify(errorBody(503, 'The hub is shutting down'));
  response.writeHead(503, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'retry-after': RETRY_AFTER_SECONDS,
    connection: 'close',
  });
  response.end(body);
}

export function createHttpDrain(): HttpDrain {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let onAnswered: () => void = () => undefined;
  const answered = () => [...inFlight].every(isStream);

  return {
    listener: (next) => (request, response) => {
      if (draining) {
        answerShuttingDown(response);
        return;
      }
      inFlight.add(response);
      response.once('close', () => {
        inFlight.delete(response);
        onAnswered();
      });
      next(request, response);
    },
    async drain(server, ms) {
      draining = true;
      server.close();
      // Answers not begun yet close their connection once sent; idle kept-alive connections go now.
      for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false;
      server.closeIdleConnections();
      if (answered()) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        onAnswered = () => {
          if (!answered()) return;
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}
