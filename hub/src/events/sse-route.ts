import type { Context } from 'hono';
import type { Logger } from '../../../shared/logging/logger';
import type { Principal } from '../auth/principal';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { HubDeps } from '../hub-deps';
import type { ConnectedClients } from './connected-clients';
import { createConnectionLimiter } from './connection-limiter';
import type { EventBus } from './event-bus';
import { openUiEventStream } from './ui-event-stream';

/** Tuning of the UI stream. Absent fields take the values of http-interface §8; tests shorten the heartbeat. */
export interface UiEventStreamSettings {
  /** http-interface §8: every 15 seconds. */
  heartbeatMs?: number;
  /** http-interface §8: 10 streams per client address. */
  maxPerIp?: number;
  /** http-interface §8: 10 streams per session. */
  maxPerSession?: number;
  /** Live events one client may have waiting before it is disconnected. */
  queueLimit?: number;
  /** Replay ring (http-interface §8: 5 minutes), bounded by count too. */
  replayWindowMs?: number;
  maxBuffered?: number;
}

export const UI_STREAM_DEFAULTS = {
  heartbeatMs: 15_000,
  maxPerIp: 10,
  maxPerSession: 10,
  // Frames are shared between clients, so a queued event costs a client a reference, not a copy.
  queueLimit: 5_000,
  replayWindowMs: 300_000,
  maxBuffered: 10_000,
} as const satisfies Required<UiEventStreamSettings>;

/** Where the runtime cannot name the client (in-memory requests), every stream shares one bucket. */
export const UNKNOWN_CLIENT_ADDRESS = 'unknown';
/** A slot frees only when another stream of the same client closes; a short wait is the honest hint. */
const RETRY_AFTER_SECONDS = 5;
const MAX_EVENT_ID_LENGTH = 128;

const lastEventIdParam = qText({
  maxLength: MAX_EVENT_ID_LENGTH,
  description:
    'Id of the last event received (`<bootId>:<counter>`), for clients that cannot send the Last-Event-ID header; the header wins',
});

/**
 * The identity the per-session cap counts. The principal carries no session id yet, so a user's
 * sessions share one budget; anonymous callers have no identity and are capped by address only.
 */
function identityOf(principal: Principal): string | undefined {
  if (principal.kind === 'session') return `session:${principal.username}`;
  if (principal.kind === 'api-key') return `api-key:${principal.keyId}`;
  return undefined;
}

/** Headers of every SSE answer of the hub (the UI stream, the stats streams). */
export function streamHeaders(runtime: HubDeps['runtime']): Record<string, string> {
  return {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    // Nginx would otherwise hold events back to fill its buffer.
    'X-Accel-Buffering': 'no',
    // A hop-by-hop header: HTTP/1.1 servers take it, Workers manage connections themselves.
    ...(runtime !== 'workers' && { Connection: 'keep-alive' }),
  };
}

/** The UI event stream (http-interface §6.1): the bus it follows, who is connected, and the runtime's view of the socket. */
export interface UiEventRoutesDeps {
  events: EventBus;
  connectedClients: ConnectedClients;
  logger: Logger;
  runtime: HubDeps['runtime'];
  clientAddress: (c: Context) => string | undefined;
  /** Cuts the client's connection at once; undefined where the runtime cannot (the stream errors itself). */
  dropConnection: ((c: Context) => void) | undefined;
  /** Tuning of the stream (heartbeat, caps); the values of http-interface §8 where undefined. */
  uiEvents: UiEventStreamSettings | undefined;
}

export function registerUiEventRoutes(api: RouteGroup, deps: UiEventRoutesDeps): void {
  const { events, connectedClients, runtime, clientAddress, dropConnection } = deps;
  const settings = { ...UI_STREAM_DEFAULTS, ...deps.uiEvents };
  const limiter = createConnectionLimiter({ perIp: settings.maxPerIp, perSession: settings.maxPerSession });
  const logger = deps.logger.child('events.ui');

  api.add(
    {
      method: 'get',
      path: '/events/ui',
      access: 'read',
      tag: 'events',
      summary:
        'Server-Sent Events for the UI: dd:connected, replay after Last-Event-ID (or dd:resync-required), then live events',
      query: { 'last-event-id': lastEventIdParam },
      statuses: { 400: 'last-event-id is too long', 429: 'Too many open streams from this address or session' },
    },
    (c: Context<HubEnv>, { query }) => {
      const headers = streamHeaders(runtime);
      // Hono answers HEAD from the GET handler and drops the body uncancelled: no stream, no slot.
      if (c.req.method === 'HEAD') return c.body(null, 200, headers);
      const ip = clientAddress(c) ?? UNKNOWN_CLIENT_ADDRESS;
      const slot = limiter.acquire({ ip, session: identityOf(c.get('principal')) });
      if (!slot.ok) {
        const what = slot.scope === 'ip' ? 'this address' : 'this session';
        throw new HttpError(
          429,
          `Too many open event streams from ${what} (at most ${slot.limit})`,
          { scope: slot.scope, limit: slot.limit },
          { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        );
      }
      // The header wins (http-interface §6.1); an empty one is treated as absent. An overlong header is
      // not an id this hub issued, so the bus answers it with a resync like any other bad id.
      const lastEventId = c.req.header('last-event-id') || query['last-event-id'];
      const stream = openUiEventStream({
        bus: events,
        clients: connectedClients,
        lastEventId,
        heartbeatMs: settings.heartbeatMs,
        queueLimit: settings.queueLimit,
        signal: c.req.raw.signal,
        disconnect: dropConnection && (() => dropConnection(c)),
        onEnd: (reason) => {
          slot.release();
          if (reason === 'too-slow')
            logger.warn('disconnected a UI event client that fell behind', { ip, queueLimit: settings.queueLimit });
        },
      });
      return c.body(stream, 200, headers);
    },
  );
}
