/**
 * Cooperative time slices for a long run of promise continuations (a watch cycle building a
 * thousand records once their images are known): `pause()` answers undefined while the current
 * slice lasts, and once it has run `sliceMs`, a promise that resolves on a later turn of the event
 * loop, so network answers waiting meanwhile (the registry's) are read and their next requests sent
 * instead of waiting for the whole run (issue 29: a 100 to 150 ms run held a cycle's first registry
 * answers). Every caller of one slice waits for the same turn.
 */
export interface TimeSlices {
  pause(): Promise<void> | undefined;
}

type Schedule = (callback: () => void) => unknown;

/**
 * Node's setImmediate where there is one (after the turn's I/O, without setTimeout's 1 ms floor);
 * setTimeout elsewhere (Workers). Looked up at each call, as test fake timers replace them.
 */
const nextTurn: Schedule = (callback) => {
  const immediate = (globalThis as { setImmediate?: Schedule }).setImmediate;
  return immediate ? immediate(callback) : setTimeout(callback, 0);
};

export function createTimeSlices(
  sliceMs: number,
  clock: () => number = () => performance.now(),
  schedule: Schedule = nextTurn,
): TimeSlices {
  let started = clock();
  let turn: Promise<void> | undefined;
  return {
    pause() {
      if (turn) return turn;
      if (clock() - started < sliceMs) return undefined;
      turn = new Promise<void>((resolve) =>
        schedule(() => {
          turn = undefined;
          started = clock();
          resolve();
        }),
      );
      return turn;
    },
  };
}
