import { describe, expect, it } from 'vitest';
import { type HeapRun, RunHeap } from './run-heap';

/** A small deterministic generator, so a failure names the seed that found it. */
function lcg(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('RunHeap', () => {
  it('pops in time order (ties by name) whatever the order of pushes and pops', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const random = lcg(seed);
      const heap = new RunHeap();
      const model: HeapRun[] = [];
      const order = (a: HeapRun, b: HeapRun) => a.at - b.at || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      for (let step = 0; step < 400; step++) {
        if (random() < 0.6) {
          const run = { at: Math.floor(random() * 50), name: `job-${Math.floor(random() * 30)}` };
          heap.push(run);
          model.push(run);
          model.sort(order);
        } else {
          const popped = heap.pop();
          const expected = model.shift();
          expect({ seed, step, popped: popped && { ...popped } }).toEqual({
            seed,
            step,
            popped: expected && { ...expected },
          });
        }
        expect(heap.size).toBe(model.length);
        expect(heap.peek()?.at).toBe(model[0]?.at);
      }
    }
  });

  it('is empty after reset with nothing, and holds exactly what reset gives', () => {
    const heap = new RunHeap();
    for (let i = 0; i < 10; i++) heap.push({ at: 10 - i, name: `a${i}` });
    heap.reset([
      { at: 5, name: 'b' },
      { at: 3, name: 'c' },
    ]);
    expect([heap.pop()?.name, heap.pop()?.name, heap.pop()]).toEqual(['c', 'b', undefined]);
    heap.reset([]);
    expect(heap.size).toBe(0);
  });
});
