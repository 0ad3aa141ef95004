import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import type { NotificationRuleId } from '../../../shared/schemas/notification-rule';
import type { Scheduler } from '../schedule/scheduler';
import type { NotificationOutboxStore, OutboxEntry, OutboxStatus } from '../store/notification-outbox-store';
import { DeliveryError, type NotificationMessage } from './notification-provider';
import type { NotificationTrigger } from './notification-triggers';
import { redactDeliveryError } from './redact-delivery-error';

/**
 * Retry schedule of failed deliveries. Defaults: 5 attempts, waits of 30 s, 2 min, 8 min and
 * 20 min between them (×4, capped), each ±20 % jitter so a fleet of hubs does not retry in step:
 * about half an hour from the first attempt to dead-letter.
 */
export interface OutboxTiming {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Each attempt is abandoned after this long (DD_NOTIFICATION_TIMEOUT). */
  timeoutMs: number;
  random: () => number;
}

export const DEFAULT_OUTBOX_TIMING: Omit<OutboxTiming, 'timeoutMs'> = {
  maxAttempts: 5,
  baseDelayMs: 30_000,
  maxDelayMs: 20 * 60_000,
  random: Math.random,
};

/** Dead-letter entries kept at most; the oldest are deleted beyond it. */
const MAX_DEAD_LETTERS = 1000;
const WRITE_BATCH = 32;

export interface OutboxDeps {
  store: NotificationOutboxStore;
  trigger(id: string): NotificationTrigger | undefined;
  fetch: typeof fetch;
  now: () => number;
  timing: OutboxTiming;
  logger: Logger;
  audit(record: AuditRecord): Promise<unknown>;
  /** Told the outcome of every attempt (dd_trigger_deliveries_total). */
  onAttempt?: ((triggerId: string, result: 'delivered' | OutboxStatus) => void) | undefined;
  /** The durable schedules: the wake at the next retry survives a restart (and wakes an evicted Durable Object). */
  schedule: Pick<Scheduler, 'job'>;
}

/** The outbox's one scheduled job: it wakes at the earliest retry, whose time each entry stores itself. */
export const OUTBOX_WAKE_JOB = 'notifications.outbox';

export interface NewDelivery {
  triggerId: string;
  event: NotificationRuleId;
  kind: 'simple' | 'batch';
  title: string;
  body: string;
  containers: Container[];
  manual?: boolean;
}

export type DeliveryOutcome = { delivered: true } | { delivered: false; entry: OutboxEntry };

export interface Outbox {
  start(): void;
  stop(): Promise<void>;
  /** Persists the deliveries (in this order), then hands them to their triggers' lanes. */
  enqueue(deliveries: readonly NewDelivery[]): Promise<void>;
  /** A manual run: persisted like any delivery, attempted at once, the outcome awaited. */
  deliverNow(delivery: NewDelivery): Promise<DeliveryOutcome>;
  list(status?: OutboxStatus): OutboxEntry[];
  /** Requeues a dead-letter entry; undefined when there is none with this id. */
  retry(id: string): Promise<OutboxEntry | undefined>;
  remove(id: string): Promise<boolean>;
  /** Resolves once nothing is in flight or due now (tests). */
  settled(): Promise<void>;
}

export function backoffDelay(failures: number, timing: Omit<OutboxTiming, 'timeoutMs'>, retryAfterMs?: number): number {
  const step = Math.min(timing.maxDelayMs, timing.baseDelayMs * 4 ** Math.max(0, failures - 1));
  const jittered = Math.round(step * (0.8 + 0.4 * timing.random()));
  // The receiver's own wait is honoured, up to the longest step: a Retry-After of a day is not.
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, timing.maxDelayMs));
}

/** The longest wait `failed` can set: the top step with its jitter (a Retry-After is capped at the top step). */
const longestWait = (timing: Omit<OutboxTiming, 'timeoutMs'>) => Math.ceil(timing.maxDelayMs * 1.2);

/**
 * When an entry is due. A `nextAttemptAt` further ahead than any backoff sets can only come from a
 * clock stepped back since it was written (an NTP correction, a restored VM, a host clock fixed by
 * hand): the entry is due now, not an hour later.
 */
export function dueAt(nextAttemptAt: string | undefined, now: number, timing: Omit<OutboxTiming, 'timeoutMs'>): number {
  if (nextAttemptAt === undefined) return now;
  const due = Date.parse(nextAttemptAt);
  return due - now > longestWait(timing) ? now : due;
}

/**
 * Every notification goes through here (http-interface §2.9, §3.6): stored first, so a restart loses
 * nothing, then delivered in one lane per trigger (a slow receiver never holds back the others;
 * one trigger's messages leave in order). A failure is retried with backoff; when attempts run
 * out, or the receiver refused in a way a retry cannot fix, the entry becomes `dead-letter` and
 * the audit trail gets `notification-delivery-failed`. Delivery is at least once: an attempt
 * interrupted by a crash is made again after the restart.
 */
export function createOutbox(deps: OutboxDeps): Outbox {
  const { store, timing, logger } = deps;
  const lanes = new Map<string, Promise<void>>();
  /** Entries handed to a lane and not finished yet. */
  const busy = new Set<string>();
  let running = false;
  /** Attempts in flight: stop() aborts them, and their entries stay as they were for the next start. */
  const inFlight = new Set<AbortController>();
  let sequence = 0;

  const iso = (ms: number) => new Date(ms).toISOString();
  const nextId = (ms: number) =>
    `${ms.toString(36).padStart(9, '0')}-${(sequence++ % 1_679_616).toString(36).padStart(4, '0')}${crypto.randomUUID().slice(0, 6)}`;

  async function send(trigger: NotificationTrigger, entry: OutboxEntry): Promise<void> {
    const controller = new AbortController();
    inFlight.add(controller);
    let expiry: ReturnType<typeof setTimeout> | undefined;
    const message: NotificationMessage = { event: entry.event, kind: entry.kind, ...entry.message };
    const timeout = new Promise<never>((_, reject) => {
      expiry = setTimeout(() => {
        controller.abort();
        reject(new DeliveryError(`${trigger.id}: no answer within ${timing.timeoutMs} ms (delivery timeout)`, true));
      }, timing.timeoutMs);
    });
    const sending = trigger.transport.send(message, { fetch: deps.fetch, signal: controller.signal, now: deps.now });
    // Its late failure, after the timeout won, is already accounted for.
    sending.catch(() => undefined);
    try {
      // A provider that ignores the signal still cannot hold its lane past the timeout.
      await Promise.race([sending, timeout]);
    } finally {
      clearTimeout(expiry);
      inFlight.delete(controller);
    }
  }

  async function failed(
    entry: OutboxEntry,
    trigger: NotificationTrigger | undefined,
    error: unknown,
  ): Promise<OutboxEntry> {
    const now = deps.now();
    const attempts = entry.attempts + 1;
    const raw = errorMessage(error);
    const lastError = redactDeliveryError(raw, trigger?.secrets ?? []);
    const retryable = !(error instanceof DeliveryError) || error.retryable;
    const dead = !trigger || !retryable || attempts >= timing.maxAttempts;
    const { nextAttemptAt: _previous, ...rest } = entry;
    const next: OutboxEntry = dead
      ? { ...rest, attempts, status: 'dead-letter', lastError, updatedAt: iso(now) }
      : {
          ...rest,
          attempts,
          status: 'retrying',
          lastError,
          updatedAt: iso(now),
          nextAttemptAt: iso(
            now + backoffDelay(attempts, timing, error instanceof DeliveryError ? error.retryAfterMs : undefined),
          ),
        };
    // Deleted by an admin while the attempt ran: its outcome must not bring it back.
    if (!store.get(entry.id)) return next;
    await store.put(next);
    logger.warn(dead ? 'notification delivery failed for good' : 'notification delivery failed; will retry', {
      trigger: entry.triggerId,
      entry: entry.id,
      attempts,
      error: lastError,
      ...(next.nextAttemptAt && { nextAttemptAt: next.nextAttemptAt }),
    });
    if (dead) {
      await deps.audit({
        action: 'notification-delivery-failed',
        triggerName: entry.triggerId,
        status: 'dead-letter',
        ...(entry.message.containers.length === 1 && { containerName: entry.message.containers[0]?.name }),
        details: `${entry.event}: ${lastError}`.slice(0, 500),
      });
      await pruneDeadLetters();
    }
    return next;
  }

  async function pruneDeadLetters(): Promise<void> {
    const dead = store.all().filter((entry) => entry.status === 'dead-letter');
    for (const entry of dead.slice(0, Math.max(0, dead.length - MAX_DEAD_LETTERS))) await store.remove(entry.id);
  }

  /** One attempt; the outcome is stored before the entry leaves `busy`. */
  async function attempt(id: string): Promise<DeliveryOutcome> {
    const entry = store.get(id);
    if (!entry) return { delivered: true };
    if (entry.status === 'dead-letter' || !running) return { delivered: false, entry };
    const trigger = deps.trigger(entry.triggerId);
    try {
      if (!trigger) throw new DeliveryError(`the trigger ${entry.triggerId} is no longer configured`, false);
      await send(trigger, entry);
    } catch (error) {
      // Cut short by stop(): not the receiver's failure, and the next start attempts it again.
      if (!running) return { delivered: false, entry };
      const next = await failed(entry, trigger, error);
      deps.onAttempt?.(entry.triggerId, next.status);
      return { delivered: false, entry: next };
    }
    deps.onAttempt?.(entry.triggerId, 'delivered');
    await store.remove(id);
    return { delivered: true };
  }

  function enqueueInLane(entry: OutboxEntry): Promise<void> {
    busy.add(entry.id);
    const lane = (lanes.get(entry.triggerId) ?? Promise.resolve())
      .then(() => attempt(entry.id))
      .catch((error: unknown) =>
        logger.error('outbox attempt failed unexpectedly', { entry: entry.id, error: String(error) }),
      )
      .then(() => {
        busy.delete(entry.id);
        if (lanes.get(entry.triggerId) === lane) lanes.delete(entry.triggerId);
        pump();
      });
    lanes.set(entry.triggerId, lane);
    return lane;
  }

  /** Hands every due entry to its lane and moves the wake to the next one; returns the lanes it fed. */
  function pump(): Promise<void>[] {
    if (!running) return [];
    const now = deps.now();
    let earliest: number | undefined;
    const fed: Promise<void>[] = [];
    for (const entry of store.all()) {
      if (entry.status === 'dead-letter' || busy.has(entry.id)) continue;
      const due = dueAt(entry.nextAttemptAt, now, timing);
      if (due <= now) fed.push(enqueueInLane(entry));
      else earliest = earliest === undefined ? due : Math.min(earliest, due);
    }
    wake.runAt(earliest);
    return fed;
  }

  // The wake awaits the attempts it started: on Workers the alarm that re-created the object holds
  // it until the retries it came for are done.
  const wake = deps.schedule.job(OUTBOX_WAKE_JOB, async () => {
    await Promise.all(pump());
  });

  function newEntry(delivery: NewDelivery, now: number): OutboxEntry {
    return {
      id: nextId(now),
      triggerId: delivery.triggerId,
      event: delivery.event,
      kind: delivery.kind,
      status: 'pending',
      attempts: 0,
      createdAt: iso(now),
      updatedAt: iso(now),
      nextAttemptAt: iso(now),
      ...(delivery.manual && { manual: true }),
      message: { title: delivery.title, body: delivery.body, containers: delivery.containers },
    };
  }

  return {
    start() {
      // Through the schedule, not at once: entries left by the previous run are attempted at its first
      // wake, inside the alarm that woke the object on Workers. An empty outbox schedules (writes) nothing.
      running = true;
      let earliest: number | undefined;
      for (const entry of store.all()) {
        if (entry.status === 'dead-letter') continue;
        const due = dueAt(entry.nextAttemptAt, deps.now(), timing);
        earliest = earliest === undefined ? due : Math.min(earliest, due);
      }
      wake.runAt(earliest);
    },
    async stop() {
      // The wake stays stored: the next start attempts what is due from the entries themselves.
      running = false;
      // A hanging receiver must not hold the hub's shutdown for a whole delivery timeout.
      for (const controller of inFlight) controller.abort();
      await Promise.all(lanes.values());
    },
    async enqueue(deliveries) {
      const now = deps.now();
      const entries = deliveries.map((delivery) => newEntry(delivery, now));
      // In parallel, a few at a time: a cycle of a thousand containers is a thousand fsynced files.
      for (let i = 0; i < entries.length; i += WRITE_BATCH)
        await Promise.all(entries.slice(i, i + WRITE_BATCH).map(store.put));
      pump();
    },
    async deliverNow(delivery) {
      const entry = newEntry(delivery, deps.now());
      busy.add(entry.id);
      try {
        await store.put(entry);
        return await attempt(entry.id);
      } finally {
        busy.delete(entry.id);
        pump();
      }
    },
    list: (status) => store.all().filter((entry) => status === undefined || entry.status === status),
    async retry(id) {
      const entry = store.get(id);
      if (entry?.status !== 'dead-letter') return undefined;
      const now = deps.now();
      const requeued: OutboxEntry = {
        ...entry,
        status: 'pending',
        attempts: 0,
        updatedAt: iso(now),
        nextAttemptAt: iso(now),
      };
      await store.put(requeued);
      pump();
      return requeued;
    },
    remove: (id) => store.remove(id),
    async settled() {
      for (;;) {
        const pending = [...lanes.values()];
        if (pending.length === 0) return;
        await Promise.all(pending);
      }
    },
  };
}
