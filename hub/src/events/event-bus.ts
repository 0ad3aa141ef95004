import {
  type BroadcastUiEventType,
  CONNECTION_EVENT_TYPES,
  type ResyncReason,
  UI_EVENT_TYPES,
  type UiEventData,
  type UiEventType,
} from '../../../shared/schemas/ui-events';

export type { BroadcastUiEventType, UiEventType } from '../../../shared/schemas/ui-events';

const BROADCAST_TYPES: ReadonlySet<string> = new Set(
  UI_EVENT_TYPES.filter((type) => !(CONNECTION_EVENT_TYPES as readonly string[]).includes(type)),
);

/** How capabilities announce a change to every open UI stream: the bus's own signature, without its return value. */
export type Publish = <T extends BroadcastUiEventType>(type: T, data: UiEventData<T>) => void;

/** For publishers whose event type is only known at run time. */
export function isBroadcastUiEventType(type: string): type is BroadcastUiEventType {
  return BROADCAST_TYPES.has(type);
}

/** One published event; immutable once published, so every subscriber may share it. */
export interface UiEvent {
  /** `<bootId>:<counter>`, the SSE id. */
  readonly id: string;
  readonly counter: number;
  readonly type: UiEventType;
  readonly data: unknown;
  readonly publishedAt: number;
}

export type UiEventListener = (event: UiEvent) => void;

/**
 * What a reconnecting client's Last-Event-ID allows: `none` (no id given: live events only), `ok`
 * (`missed` holds everything after it), `resync-required` (older than the ring, or not an id this
 * boot issued) or `boot-changed` (issued before a restart: nothing can be replayed).
 */
export type ReplayOutcome = 'none' | 'ok' | 'resync-required' | 'boot-changed';

export interface Subscription {
  replay: ReplayOutcome;
  /** Set whenever the client must reload its state (`resync-required` and `boot-changed`). */
  resyncReason: ResyncReason | undefined;
  missed: readonly UiEvent[];
  /**
   * The id after which this subscription's events follow: the client's own id when replaying,
   * the newest id otherwise. Events that are not in the ring (dd:connected) carry it, so a client
   * that drops before its replay arrives asks for the same replay again.
   */
  position: string;
  unsubscribe(): void;
}

export interface SubscribeOptions {
  lastEventId?: string | undefined;
  /** Called once when the bus ends the subscription (hub stop); not after unsubscribe(). */
  onClose?: () => void;
}

export interface EventBus {
  readonly bootId: string;
  /** Connection-scoped events (dd:connected, dd:heartbeat, dd:resync-required) are not published. */
  publish<T extends BroadcastUiEventType>(type: T, data: UiEventData<T>): UiEvent;
  subscribe(listener: UiEventListener, options?: SubscribeOptions): Subscription;
  /** Id of the newest event; `<bootId>:0` before the first. */
  currentId(): string;
  readonly subscriberCount: number;
  /** Events in the replay ring now (expired ones dropped first). */
  bufferedCount(): number;
  /** Ends every subscription; used when the hub stops. */
  closeAll(): void;
}

export interface EventBusOptions {
  now: () => number;
  bootId: string;
  /** http-interface §8: the replay buffer covers 5 minutes. */
  replayWindowMs?: number;
  /** A burst must not grow the ring without bound inside the window. */
  maxBuffered?: number;
  /** A listener threw; the others still got the event. */
  onListenerError?: (error: unknown, event: UiEvent) => void;
}

const COUNTER = /^(0|[1-9]\d{0,15})$/;
const BOOT = /^[A-Za-z0-9-]{1,64}$/;

type ParsedId = { kind: 'this-boot'; counter: number } | { kind: 'other-boot' } | { kind: 'invalid' };

function parseEventId(id: string, bootId: string): ParsedId {
  const separator = id.lastIndexOf(':');
  if (separator < 0) return { kind: 'invalid' };
  const boot = id.slice(0, separator);
  const counter = id.slice(separator + 1);
  if (boot !== bootId) return BOOT.test(boot) && COUNTER.test(counter) ? { kind: 'other-boot' } : { kind: 'invalid' };
  return COUNTER.test(counter) ? { kind: 'this-boot', counter: Number(counter) } : { kind: 'invalid' };
}

/**
 * The in-memory publish/subscribe hub of the UI stream, with the replay ring of http-interface §6.1.
 * Listeners run synchronously inside publish(); each must only queue the event (the SSE stream
 * bounds its own queue), so one slow or failing client cannot hold up the others.
 */
export function createEventBus(options: EventBusOptions): EventBus {
  const { now, bootId } = options;
  const replayWindowMs = options.replayWindowMs ?? 300_000;
  const maxBuffered = options.maxBuffered ?? 10_000;
  const listeners = new Map<UiEventListener, SubscribeOptions>();
  // Counters in the ring are contiguous (every published event enters it, eviction is from the
  // front), so a counter's position is computed, not searched. `start` avoids shifting the array.
  let ring: UiEvent[] = [];
  let start = 0;
  let counter = 0;

  const idOf = (n: number) => `${bootId}:${n}`;

  function evict(): void {
    const cutoff = now() - replayWindowMs;
    while (start < ring.length && (ring.length - start > maxBuffered || (ring[start] as UiEvent).publishedAt < cutoff))
      start++;
    if (start > 1024 && start * 2 > ring.length) {
      ring = ring.slice(start);
      start = 0;
    }
  }

  function replayFrom(
    lastEventId: string | undefined,
  ): Pick<Subscription, 'replay' | 'resyncReason' | 'missed' | 'position'> {
    const head = idOf(counter);
    if (lastEventId === undefined || lastEventId === '')
      return { replay: 'none', resyncReason: undefined, missed: [], position: head };
    const parsed = parseEventId(lastEventId, bootId);
    if (parsed.kind === 'other-boot')
      return { replay: 'boot-changed', resyncReason: 'boot-changed', missed: [], position: head };
    // A counter above ours was never issued by this boot: as untrustworthy as a garbled id.
    if (parsed.kind === 'invalid' || parsed.counter > counter) {
      return { replay: 'resync-required', resyncReason: 'invalid-event-id', missed: [], position: head };
    }
    evict();
    const oldest = start < ring.length ? (ring[start] as UiEvent).counter : counter + 1;
    // The client holds everything up to its counter, so the ring must start at most one above it.
    if (parsed.counter < oldest - 1)
      return { replay: 'resync-required', resyncReason: 'buffer-exceeded', missed: [], position: head };
    return {
      replay: 'ok',
      resyncReason: undefined,
      missed: ring.slice(start + (parsed.counter + 1 - oldest)),
      position: idOf(parsed.counter),
    };
  }

  return {
    bootId,
    publish(type, data) {
      counter += 1;
      const event: UiEvent = Object.freeze({ id: idOf(counter), counter, type, data, publishedAt: now() });
      ring.push(event);
      evict();
      // A snapshot, so a listener subscribing from inside a listener does not get this event twice
      // (once replayed from the ring, once live); one that unsubscribes meanwhile is skipped.
      for (const listener of [...listeners.keys()]) {
        if (!listeners.has(listener)) continue;
        try {
          listener(event);
        } catch (error) {
          options.onListenerError?.(error, event);
        }
      }
      return event;
    },
    subscribe(listener, subscribeOptions = {}) {
      // Computing the replay and registering the listener in one synchronous step leaves no gap
      // in which an event could be neither replayed nor delivered live.
      const replay = replayFrom(subscribeOptions.lastEventId);
      // A listener object may be subscribed once per call; wrap it so each subscription is its own key.
      const own: UiEventListener = (event) => listener(event);
      listeners.set(own, subscribeOptions);
      return { ...replay, unsubscribe: () => listeners.delete(own) };
    },
    currentId: () => idOf(counter),
    get subscriberCount() {
      return listeners.size;
    },
    bufferedCount() {
      evict();
      return ring.length - start;
    },
    closeAll() {
      const ending = [...listeners.values()];
      listeners.clear();
      for (const subscription of ending) {
        try {
          subscription.onClose?.();
        } catch {
          // Ending one subscription must not stop the others from ending.
        }
      }
    },
  };
}
