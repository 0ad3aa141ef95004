import type { RuntimeWakeUp } from '../../hub-deps';

/** The alarm part of a Durable Object's `state.storage` (workers-types is not a dependency). */
export interface DurableObjectAlarmStorage {
  setAlarm(scheduledTime: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

/**
 * The hub's schedules on the Durable Object alarm: one alarm, at the earliest job of every
 * schedule (the object has one). The alarm is stored with the object, so it fires after an eviction
 * or a restart of the runtime and re-creates the object, whose alarm() handler then runs the due
 * jobs (`fire`). `onFire` hands that handler the scheduler's `fire`.
 */
export function alarmWakeUp(
  storage: DurableObjectAlarmStorage,
  onFire: (fire: () => Promise<void>) => void,
): (fire: () => Promise<void>) => RuntimeWakeUp {
  return (fire) => {
    onFire(fire);
    return {
      set: (delayMs) => (delayMs === undefined ? storage.deleteAlarm() : storage.setAlarm(Date.now() + delayMs)),
    };
  };
}
