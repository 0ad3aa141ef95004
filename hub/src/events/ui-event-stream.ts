import type { ConnectedClients } from './connected-clients';
import type { EventBus } from './event-bus';
import { encodeFrame, frameOf } from './sse-frame';

export type StreamEndReason = 'client-closed' | 'too-slow' | 'hub-stopping';

export interface UiEventStreamOptions {
  bus: EventBus;
  clients: ConnectedClients;
  lastEventId: string | undefined;
  heartbeatMs: number;
  /** Live events a connection may have waiting, beyond its replay, before it is dropped. */
  queueLimit: number;
  /** The request's signal, for runtimes that report a vanished client there rather than by cancel. */
  signal?: AbortSignal | undefined;
  /** The runtime's way to cut the connection; it must end in cancel(), which drops the backlog. */
  disconnect?: (() => void) | undefined;
  /** Called exactly once, however the stream ends. */
  onEnd: (reason: StreamEndReason) => void;
}

/**
 * One client's event stream: dd:connected, then the replay (or dd:resync-required), then live
 * events and heartbeats. A Last-Event-ID from before a restart cannot be replayed; the client is
 * told so with dd:resync-required `{reason: 'boot-changed'}`, the one event that already means
 * "reload everything", rather than with an event type of our own that clients would not know. It is a plain ReadableStream, so it runs on any runtime, and its own
 * queue is the per-client buffer: the runtime pulls from it only as fast as the socket drains.
 * A client that lets it fill is cut off (it reconnects with Last-Event-ID and is replayed or told
 * to resync) rather than buffered without bound.
 */
export function openUiEventStream(options: UiEventStreamOptions): ReadableStream<Uint8Array> {
  const { bus, clients, signal } = options;
  const credentials = clients.register();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let ended = false;

  const end = (reason: StreamEndReason): boolean => {
    if (ended) return false;
    ended = true;
    clearInterval(heartbeat);
    subscription.unsubscribe();
    clients.unregister(credentials.clientId);
    signal?.removeEventListener('abort', onAbort);
    options.onEnd(reason);
    return true;
  };
  const finish = (reason: StreamEndReason) => {
    if (!end(reason)) return;
    try {
      controller?.close();
    } catch {
      // Already cancelled by the reader: nothing is left to close.
    }
  };
  const onAbort = () => finish('client-closed');

  // Drops the client and its backlog: the runtime's disconnect ends in cancel(), error() is the
  // portable way. Not close(), which would keep the backlog until a stalled client read it.
  const cutOff = (c: ReadableStreamDefaultController<Uint8Array>) => {
    try {
      if (options.disconnect) return options.disconnect();
    } catch {
      // Fall through to the portable way.
    }
    c.error(new Error('ui events: the client fell too far behind and was disconnected'));
  };

  // The id after which this client's stream stands; frames outside the ring repeat it.
  let position = '';
  const send = (frame: Uint8Array, id: string) => {
    if (ended || controller === undefined) return;
    if ((controller.desiredSize ?? 0) <= 0) {
      end('too-slow');
      cutOff(controller);
      return;
    }
    controller.enqueue(frame);
    position = id;
  };

  // Subscribing before the stream exists is safe: nothing can be published in between.
  const subscription = bus.subscribe((event) => send(frameOf(event), event.id), {
    lastEventId: options.lastEventId,
    onClose: () => finish('hub-stopping'),
  });
  position = subscription.position;
  // Room for the whole replay, which is queued at once, plus the live allowance.
  const highWaterMark = subscription.missed.length + options.queueLimit + 2;

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        send(encodeFrame(position, 'dd:connected', credentials), position);
        if (subscription.resyncReason !== undefined) {
          send(encodeFrame(position, 'dd:resync-required', { reason: subscription.resyncReason }), position);
        }
        for (const event of subscription.missed) send(frameOf(event), event.id);
        heartbeat = setInterval(() => send(encodeFrame(position, 'dd:heartbeat', {}), position), options.heartbeatMs);
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      },
      cancel() {
        end('client-closed');
      },
    },
    new CountQueuingStrategy({ highWaterMark }),
  );
}
