import { createStorage, type Storage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import type { GroupPolicy } from '../../../shared/schemas/group-policy';
import type { Rollout } from '../../../shared/schemas/rollout';
import type { UpdateOperation } from '../../../shared/update-engine';
import { containerRecord } from '../../../test/support/container-fixture';
import { createEventBus } from '../events/event-bus';
import type { RuntimeWakeUp } from '../hub-deps';
import { createScheduler } from '../schedule/scheduler';
import { createScheduleStore } from '../store/schedule-store';
import type { RolloutResult } from './rollout-refusal';
import { createRolloutService } from './rollout-service';
import { ROLLOUT_WAVES_JOB } from './wave-runner';

// The rollout service's state machine on the real scheduler and event bus, over an update service
// whose operations the test ends by hand, and a clock and wake-up the test moves: restarts (a new
// service and scheduler on the same storage), pauses, halts, abort and the refusals. The waves on
// real dockerds and agents: test/integration/rollouts-e2e.test.ts; across a real restart:
// test/integration/rollout-hub-restart.test.ts and workers-rollout-eviction.test.ts.

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);

const host = (agent: string): Container =>
  containerRecord({
    id: `${agent}-web`.padEnd(64, '0'),
    name: 'web',
    agent,
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
    result: { tag: '2.0.0' },
  });

/** What outlives a hub: its storage, the update service's records of operations, and the clock. */
function world() {
  return { storage: createStorage(), operations: new Map<string, UpdateOperation>(), clock: { now: T0 } };
}

/** One hub's rollouts over a world: a new call on the same world is the hub after a restart. */
function hubOver(
  shared = world(),
  seams: { policy?: GroupPolicy; storage?: Storage; requested?: (containerId: string) => void } = {},
) {
  const { operations, clock } = shared;
  const { policy, storage = shared.storage } = seams;
  const now = () => clock.now;
  const containers = ['a', 'b', 'c'].map(host);
  const requested: string[] = [];
  const audit: AuditRecord[] = [];
  const events: { type: string; state: string }[] = [];
  /** The audit's statuses as each event was published: what a client reacting to it would find. */
  const auditedAtEvent: string[][] = [];
  const wake: { delayMs: number | undefined; fire?: () => Promise<void> } = { delayMs: undefined };
  const wakeUp = (fire: () => Promise<void>): RuntimeWakeUp => {
    wake.fire = fire;
    return {
      async set(delayMs) {
        wake.delayMs = delayMs;
      },
    };
  };
  const bus = createEventBus({ now, bootId: 'test' });
  const scheduler = createScheduler({
    store: createScheduleStore(storage, logger),
    logger,
    now,
    random: () => 0,
    wakeUp,
  });
  const service = createRolloutService({
    storage,
    logger,
    now,
    audit: {
      append: async (record) => {
        audit.push(record);
        return { ...record, id: '', timestamp: '' };
      },
    },
    publish: (type, data) => {
      events.push({ type, state: (data as Rollout).state });
      auditedAtEvent.push(audit.map((entry) => entry.status as string));
      bus.publish(type, data);
    },
    events: bus,
    schedule: scheduler,
    containers: { all: () => containers, get: (id) => containers.find((c) => c.id === id) },
    settings: { get: () => ({ updateMode: 'manual', approvalRequired: false }) },
    policies: { get: (scope) => (scope === 'agent' ? policy : undefined) },
    updates: {
      requestUpdate: async (containerId, options) => {
        requested.push(containerId.slice(0, 1));
        seams.requested?.(containerId);
        const operation = {
          id: `op-${containerId.slice(0, 1)}`,
          containerId,
          status: 'queued',
          batchId: options.batchId,
        } as UpdateOperation;
        operations.set(operation.id, operation);
        return operation;
      },
      get: (id) => operations.get(id),
      operationsOf: (container) => [...operations.values()].filter((op) => op.containerId === container.id),
      unsettled: () => [...operations.values()].filter((op) => op.status === 'queued' || op.status === 'in-progress'),
    },
  });

  /** Fires the wake-up for as long as it is armed for now, as the runtime would. */
  async function drive(): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (wake.delayMs !== 0 || !wake.fire) return;
      wake.delayMs = undefined;
      await wake.fire();
    }
  }
  /** Moves the clock to the armed wake-up, fires it and whatever falls due then. */
  async function wakeAtArmedTime(): Promise<void> {
    await drive();
    if (wake.delayMs === undefined) throw new Error('nothing is armed');
    clock.now += wake.delayMs;
    wake.delayMs = 0;
    await drive();
  }
  /** The update service ends an operation and announces it. */
  async function end(agent: string, status: UpdateOperation['status'], rollbackReason?: string) {
    const operation = operations.get(`op-${agent}`) as UpdateOperation;
    operations.set(operation.id, { ...operation, status, ...(rollbackReason && { rollbackReason }) });
    if (status === 'succeeded')
      bus.publish('dd:update-applied', {
        containerName: 'web',
        agent,
        watcher: operation.watcher,
        containerId: operation.containerId,
        newContainerId: operation.containerId,
        operationId: operation.id,
        batchId: operation.batchId ?? null,
      });
    else
      bus.publish('dd:update-failed', {
        containerName: 'web',
        agent,
        watcher: operation.watcher,
        error: rollbackReason ?? 'failed',
        operationId: operation.id,
        batchId: operation.batchId ?? null,
        phase: 'health-gate',
        rollbackReason: rollbackReason ?? null,
      });
    await drive();
  }
  return {
    service,
    scheduler,
    containers,
    requested,
    audit,
    events,
    auditedAtEvent,
    wake,
    drive,
    wakeAtArmedTime,
    end,
    async up() {
      await service.load();
      await scheduler.load();
      scheduler.start();
      service.follow();
      await drive();
    },
    async down() {
      await service.stop();
      await scheduler.stop();
    },
  };
}

const rolloutOf = (result: RolloutResult): Rollout => {
  if (!result.ok) throw new Error(`refused: ${result.refusal.message}`);
  return result.rollout;
};
const statesOf = (rollout: Rollout | undefined) => rollout?.hosts.map((one) => one.state);

describe('the rollout service', () => {
  it('carries a running rollout on after a restart: the operation under way is followed, not requested again (issue 32)', async () => {
    const shared = world();
    const first = hubOver(shared);
    await first.up();
    const started = rolloutOf(await first.service.start({ image: 'web' }, 'alice'));
    await first.drive();
    expect(first.requested).toEqual(['a']);
    await first.down();

    // The canary's update ended while the hub was away (the update service's record says so).
    shared.operations.set('op-a', { ...(shared.operations.get('op-a') as UpdateOperation), status: 'succeeded' });
    const second = hubOver(shared);
    await second.up();
    const resumed = second.service.get(started.id) as Rollout;
    expect(resumed).toMatchObject({ state: 'running', currentWave: 1 });
    expect(statesOf(resumed)).toEqual(['succeeded', 'updating', 'pending']);
    expect(second.requested).toEqual(['b']);
    await second.end('b', 'succeeded');
    expect(second.requested).toEqual(['b', 'c']);
    await second.end('c', 'succeeded');
    expect(second.service.get(started.id)).toMatchObject({ state: 'completed' });
    expect(statesOf(second.service.get(started.id))).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(second.audit.map((entry) => entry.status)).toEqual([
      'wave-succeeded',
      'wave-succeeded',
      'wave-succeeded',
      'completed',
    ]);
    // Shown completed only once the audit says so: the event comes after its entries.
    expect(second.auditedAtEvent.at(-1)).toEqual(second.audit.map((entry) => entry.status));
    expect(first.auditedAtEvent[0]).toEqual(['started']);
    // Nothing is left scheduled once it is over.
    expect(second.wake.delayMs).toBeUndefined();
  });

  it('keeps the pause across a restart: the next wave starts when the stored pause ends, not before', async () => {
    const shared = world();
    const first = hubOver(shared);
    await first.up();
    const started = rolloutOf(await first.service.start({ image: 'web', pauseSeconds: 600 }, 'alice'));
    await first.drive();
    await first.end('a', 'succeeded');
    const pausing = first.service.get(started.id) as Rollout;
    expect(pausing.nextWaveAt).toBe(new Date(T0 + 600_000).toISOString());
    expect(first.wake.delayMs).toBe(600_000);
    await first.down();

    shared.clock.now += 60_000;
    const second = hubOver(shared);
    await second.up();
    expect(second.requested).toEqual([]);
    // The job's stored run wakes the hub at the pause's end (the Durable Object's alarm on Workers).
    expect(second.wake.delayMs).toBe(540_000);
    await second.wakeAtArmedTime();
    expect(shared.clock.now).toBe(T0 + 600_000);
    expect(second.requested).toEqual(['b']);
    const second1 = second.service.get(started.id) as Rollout;
    expect(second1.nextWaveAt).toBeUndefined();
    expect(second1.hosts[1]).toMatchObject({ state: 'updating', startedAt: new Date(T0 + 600_000).toISOString() });
  });

  it('finds the update it requested when the hub stopped before storing its id, and does not request it twice', async () => {
    // One memory: the first hub's writes of its rollouts fail from the canary's request on (it dies in between).
    const memory = memoryDriver();
    let dead = false;
    const dying = createStorage({
      driver: {
        ...memory,
        setItem(key, value, options) {
          if (dead && key.startsWith('rollouts:')) throw new Error('the hub is gone');
          return memory.setItem?.(key, value, options);
        },
      },
    });
    const shared = { ...world(), storage: createStorage({ driver: memory }) };
    const first = hubOver(shared, {
      storage: dying,
      requested: () => {
        dead = true;
      },
    });
    await first.up();
    const started = rolloutOf(await first.service.start({ image: 'web' }, 'alice'));
    await first.drive();
    expect(first.requested).toEqual(['a']);
    await first.down();
    expect(((await shared.storage.getItem(`rollouts:${started.id}`)) as Rollout).hosts[0]?.state).toBe('pending');

    const second = hubOver(shared);
    await second.up();
    expect(second.requested).toEqual([]);
    expect(second.service.get(started.id)?.hosts[0]).toMatchObject({
      state: 'updating',
      containers: [{ operationId: 'op-a', status: 'queued' }],
    });
    await second.end('a', 'succeeded');
    expect(second.requested).toEqual(['b']);
  });

  it('halts at a failed wave with its host and reason; abort leaves the hosts after the wave untouched', async () => {
    const bed = hubOver();
    await bed.up();
    const halting = rolloutOf(await bed.service.start({ image: 'web' }, 'alice'));
    expect(halting.waves).toBe(3);
    await bed.drive();
    await bed.end('a', 'succeeded');
    await bed.end('b', 'rolled-back', 'the new container is unhealthy');
    expect(bed.service.get(halting.id)).toMatchObject({
      state: 'halted',
      failure: { host: 'b', wave: 1, containerName: 'web', reason: 'rolled back: the new container is unhealthy' },
    });
    expect(statesOf(bed.service.get(halting.id))).toEqual(['succeeded', 'failed', 'untouched']);
    expect(bed.requested).toEqual(['a', 'b']);

    const other = hubOver();
    await other.up();
    const aborting = rolloutOf(await other.service.start({ image: 'web' }, 'alice'));
    await other.drive();
    expect(await other.service.start({ image: 'web' }, 'alice')).toMatchObject({
      ok: false,
      refusal: { reason: 'rollout-active', rolloutId: aborting.id },
    });
    const aborted = rolloutOf(await other.service.abort(aborting.id, 'carol'));
    expect(statesOf(aborted)).toEqual(['updating', 'untouched', 'untouched']);
    await other.end('a', 'succeeded');
    expect(other.service.get(aborting.id)).toMatchObject({ state: 'aborted', by: 'carol' });
    expect(statesOf(other.service.get(aborting.id))).toEqual(['succeeded', 'untouched', 'untouched']);
    expect(other.requested).toEqual(['a']);
    expect(await other.service.resume(aborting.id, 'carol')).toMatchObject({
      ok: false,
      refusal: { reason: 'rollout-state', state: 'aborted' },
    });
    expect(await other.service.pause('nope', 'carol')).toMatchObject({
      ok: false,
      refusal: { reason: 'unknown-rollout' },
    });
    expect(other.events.at(-1)).toEqual({ type: 'dd:rollout-updated', state: 'aborted' });
  });

  it('holds the next wave while paused, and starts it at once when resumed', async () => {
    const shared = world();
    const bed = hubOver(shared);
    await bed.up();
    const started = rolloutOf(await bed.service.start({ image: 'web', pauseSeconds: 60 }, 'alice'));
    await bed.drive();
    rolloutOf(await bed.service.pause(started.id, 'bob'));
    // The wave under way ends by itself; the next one waits for resume, the pause's end included.
    await bed.end('a', 'succeeded');
    expect(statesOf(bed.service.get(started.id))).toEqual(['succeeded', 'pending', 'pending']);
    expect(bed.wake.delayMs).toBeUndefined();
    shared.clock.now += 120_000;
    await bed.drive();
    expect(bed.requested).toEqual(['a']);
    expect(bed.service.get(started.id)?.state).toBe('paused');
    rolloutOf(await bed.service.resume(started.id, 'bob'));
    await bed.drive();
    expect(bed.requested).toEqual(['a', 'b']);
    expect(bed.audit.map((entry) => entry.status)).toEqual(['started', 'paused', 'wave-succeeded', 'resumed']);
  });

  it('starts from the auto-update policy once per candidate; hosts found later join the waves not started yet', async () => {
    const policy = {
      scope: 'agent',
      name: 'a',
      rollout: { waveSize: 2, pauseSeconds: 0, automatic: true },
      createdAt: '',
      updatedAt: '',
    } as GroupPolicy;
    const bed = hubOver(world(), { policy });
    await bed.up();
    const [a, b, c] = bed.containers as [Container, Container, Container];
    // Only a's watch has found the candidate so far.
    b.updateAvailable = false;
    c.updateAvailable = false;
    expect(bed.service.rollsOutAutomatically(a)).toBe(true);
    expect(await bed.service.startAutomatic(a)).toBe(true);
    const [started] = bed.service.list() as [Rollout];
    expect(started).toMatchObject({ origin: 'auto', by: 'auto-update', waves: 1 });
    expect(started.hosts.map((one) => one.host)).toEqual(['a']);
    // The canary is under way when b and c are found: they join wave 1 together (two hosts a wave).
    await bed.drive();
    expect(bed.requested).toEqual(['a']);
    b.updateAvailable = true;
    c.updateAvailable = true;
    await bed.service.startAutomatic(b);
    await bed.service.startAutomatic(c);
    await bed.service.startAutomatic(a); // its host's wave has started: nothing changes
    expect(bed.service.get(started.id)?.hosts.map((one) => [one.host, one.wave, one.containers.length])).toEqual([
      ['a', 0, 1],
      ['b', 1, 1],
      ['c', 1, 1],
    ]);
    await bed.end('a', 'succeeded');
    expect(bed.requested).toEqual(['a', 'b', 'c']);
    await bed.end('b', 'succeeded');
    await bed.end('c', 'succeeded');
    expect(bed.service.get(started.id)?.state).toBe('completed');
    // Once per candidate: no second rollout for it.
    expect(await bed.service.startAutomatic(a)).toBe(true);
    expect(bed.service.list()).toHaveLength(1);
  });

  it('looks at a wave again without the event of its end, on the job (an event missed)', async () => {
    const shared = world();
    const bed = hubOver(shared);
    await bed.up();
    const started = rolloutOf(await bed.service.start({ image: 'web' }, 'alice'));
    await bed.drive();
    shared.operations.set('op-a', { ...(shared.operations.get('op-a') as UpdateOperation), status: 'succeeded' });
    expect(bed.wake.delayMs).toBe(30_000);
    expect(await shared.storage.getItem(`schedule:${ROLLOUT_WAVES_JOB}`)).toMatchObject({ nextRunAt: T0 + 30_000 });
    await bed.wakeAtArmedTime();
    expect(bed.requested).toEqual(['a', 'b']);
    expect(bed.service.get(started.id)?.currentWave).toBe(1);
  });
});
