import type { RuntimeWakeUp } from '../hub-deps';

/** setTimeout holds a 32-bit delay: a wake further away is taken in steps (a monthly cron). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The wake-up of a runtime that lives as long as its process (Node, tests): one timer, re-armed as
 * the earliest job changes. The schedules themselves are in storage, so a restart loses none.
 */
export function timerWakeUp(fire: () => Promise<void>): RuntimeWakeUp {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (delayMs: number | undefined) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (delayMs === undefined) return;
    const step = Math.min(Math.max(0, delayMs), MAX_TIMER_MS);
    timer = setTimeout(() => {
      timer = undefined;
      if (step < delayMs) arm(delayMs - step);
      else void fire();
    }, step);
  };
  return {
    async set(delayMs) {
      arm(delayMs);
    },
  };
}
