import type { Context } from 'hono';
import { type ConnectedClients, createConnectedClients } from './events/connected-clients';
import { createEventBus, type EventBus, type Publish } from './events/event-bus';
import { RouteTable } from './http/route-table';
import type { HubDeps } from './hub-deps';
import type { HubInput } from './hub-options';
import { createHubMetrics, type HubMetrics } from './metrics/hub-metrics';
import { createReadiness, type Readiness } from './readiness';
import { createScheduler, type Scheduler } from './schedule/scheduler';
import { timerWakeUp } from './schedule/timer-wake-up';
import { createScheduleStore } from './store/schedule-store';

/**
 * What every capability may use, built before any of them: the runtime's parts, observability,
 * the scheduler (whose lifecycle the hub runs around the capabilities'), the UI event bus and
 * the route table composeHttp fills.
 */
export interface HubFoundation {
  input: HubInput;
  config: HubInput['config'];
  storage: HubDeps['storage'];
  logger: HubDeps['logger'];
  logRing: HubDeps['logRing'];
  /** The parent logger of the stores. */
  storeLogger: HubDeps['logger'];
  now: () => number;
  clientAddress: (c: Context) => string | undefined;
  bootId: string;
  startedAt: number;
  metrics: HubMetrics;
  readiness: Readiness;
  /** The durable schedules: the runtime's one wake-up (a timer, or the Durable Object alarm). */
  scheduler: Scheduler;
  /** The UI event stream: capabilities publish, every open stream receives. */
  events: EventBus;
  publish: Publish;
  connectedClients: ConnectedClients;
  /** Every route, filled by composeHttp; the key authenticator asks it which routes read their own tokens. */
  routes: RouteTable;
}

export function hubFoundation(input: HubInput): HubFoundation {
  const { config, storage, logger } = input;
  const now = input.now ?? Date.now;
  const bootId = crypto.randomUUID().slice(0, 8);
  const storeLogger = logger.child('store');
  const events = createEventBus({
    now,
    bootId,
    ...(input.uiEvents?.replayWindowMs !== undefined && { replayWindowMs: input.uiEvents.replayWindowMs }),
    ...(input.uiEvents?.maxBuffered !== undefined && { maxBuffered: input.uiEvents.maxBuffered }),
    onListenerError: (error, event) =>
      logger.child('events').warn('a UI event listener failed', { type: event.type, error: String(error) }),
  });
  return {
    input,
    config,
    storage,
    logger,
    logRing: input.logRing,
    storeLogger,
    now,
    clientAddress: (c) => input.clientAddress?.(c),
    bootId,
    startedAt: now(),
    metrics: createHubMetrics(),
    readiness: createReadiness(),
    scheduler: createScheduler({
      store: createScheduleStore(storage, storeLogger.child('schedule')),
      logger: logger.child('schedule'),
      now,
      random: Math.random,
      wakeUp: input.wakeUp ?? timerWakeUp,
      nextTurn: input.nextTurn,
    }),
    events,
    publish: (type, data) => {
      events.publish(type, data);
    },
    connectedClients: createConnectedClients(),
    routes: new RouteTable(),
  };
}
