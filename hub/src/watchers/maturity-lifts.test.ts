import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { RuntimeWakeUp } from '../hub-deps';
import { simulatedContainer } from '../notifications/simulated-container';
import { createScheduler } from '../schedule/scheduler';
import { createContainerStore } from '../store/container-store';
import { createScheduleStore } from '../store/schedule-store';
import type { DockerWatcher } from './docker-watcher';
import { createMaturityLifts } from './maturity-lifts';

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

const held = (id: string, liftableAt: number): Container =>
  simulatedContainer(T0, {
    id,
    name: id,
    blockers: [{ reason: 'maturity-not-reached', liftableAt: new Date(liftableAt).toISOString() }],
  });

/** A hub's parts around the lift job: a fake clock and wake-up, real stores, a watcher that records its checks. */
async function bed() {
  const clock = { now: T0 };
  const wake: { delayMs: number | undefined; fire?: () => Promise<void> } = { delayMs: undefined };
  const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
  const storage = createStorage();
  const containers = createContainerStore(storage, logger);
  const scheduler = createScheduler({
    store: createScheduleStore(storage, logger),
    logger,
    now: () => clock.now,
    random: () => 0,
    wakeUp: (fire): RuntimeWakeUp => {
      wake.fire = fire;
      return {
        async set(delayMs) {
          wake.delayMs = delayMs;
        },
      };
    },
  });
  const checked: string[][] = [];
  // The check a real watcher makes: the gate has lifted by now, so the blocker goes.
  const watcher = {
    id: 'docker.local',
    agent: undefined,
    async watchContainers(ids: readonly string[]) {
      checked.push([...ids]);
      for (const id of ids) {
        const record = containers.get(id);
        if (record) await containers.put({ ...record, blockers: [] });
      }
      return [];
    },
  } as unknown as DockerWatcher;
  const lifts = createMaturityLifts({
    containers,
    fleet: { ownerOf: () => watcher },
    schedule: scheduler,
    logger,
    now: () => clock.now,
  });
  await scheduler.load();
  return { clock, wake, containers, scheduler, lifts, checked };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('maturity lifts', () => {
  it('wakes at the earliest gate, checks the containers whose gate lifted, and waits for the next one', async () => {
    const { clock, wake, containers, scheduler, lifts, checked } = await bed();
    await containers.put(held('soon', T0 + DAY));
    await containers.put(held('also-soon', T0 + DAY));
    await containers.put(held('later', T0 + 3 * DAY));
    await containers.put(simulatedContainer(T0, { id: 'free', name: 'free' }));
    lifts.start();
    scheduler.start();
    await settle();
    expect(wake.delayMs).toBe(DAY);

    clock.now = T0 + DAY;
    await wake.fire?.();
    expect(checked).toEqual([['soon', 'also-soon']]);
    await settle();
    expect(wake.delayMs).toBe(2 * DAY);
  });

  it('moves the wake when an observation brings an earlier gate', async () => {
    const { wake, containers, scheduler, lifts } = await bed();
    await containers.put(held('later', T0 + 3 * DAY));
    lifts.start();
    scheduler.start();
    await settle();
    expect(wake.delayMs).toBe(3 * DAY);
    const next = held('new', T0 + 2 * 3_600_000);
    await containers.put(next);
    lifts.inventoryApplied([{ previous: undefined, next }]);
    await settle();
    expect(wake.delayMs).toBe(2 * 3_600_000);
  });
});
