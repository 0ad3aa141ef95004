import { describe, expect, it } from 'vitest';
import { FramePacer } from './frame-pacer';

/** A pacer on a hand-turned loop and clock: `turn()` runs what was handed to nextTurn. */
function pacedLoop(budgetMs = 10) {
  let clock = 0;
  let turns: (() => void)[] = [];
  const pacer = new FramePacer({ budgetMs, now: () => clock, nextTurn: (work) => void turns.push(work) });
  return {
    pacer,
    advance: (ms: number) => {
      clock += ms;
    },
    /** One loop turn; false when nothing was scheduled. */
    turn: () => {
      const due = turns;
      turns = [];
      for (const work of due) work();
      return due.length > 0;
    },
    scheduled: () => turns.length,
  };
}

describe('FramePacer', () => {
  it('runs nothing until the next turn, then everything in arrival order when it fits the budget', () => {
    const loop = pacedLoop();
    const ran: number[] = [];
    for (let i = 0; i < 5; i++) loop.pacer.run(() => ran.push(i));
    expect(ran).toEqual([]);
    expect(loop.scheduled()).toBe(1);
    loop.turn();
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    expect(loop.pacer.pending).toBe(0);
    expect(loop.turn()).toBe(false);
  });

  it('stops a slice once its budget is spent and goes on at the next turn, in order', () => {
    const loop = pacedLoop(10);
    const ran: number[] = [];
    // Each task takes 4 ms: a 10 ms slice runs three (4, 8, then 12 ≥ 10 stops it).
    for (let i = 0; i < 7; i++)
      loop.pacer.run(() => {
        ran.push(i);
        loop.advance(4);
      });
    loop.turn();
    expect(ran).toEqual([0, 1, 2]);
    expect(loop.pacer.pending).toBe(4);
    loop.turn();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5]);
    loop.turn();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(loop.turn()).toBe(false);
  });

  it('runs at least one task a turn, however long it takes', () => {
    const loop = pacedLoop(10);
    const ran: number[] = [];
    for (let i = 0; i < 3; i++)
      loop.pacer.run(() => {
        ran.push(i);
        loop.advance(50);
      });
    for (let turn = 1; turn <= 3; turn++) {
      loop.turn();
      expect(ran).toHaveLength(turn);
    }
  });

  it('keeps going after a task throws', () => {
    const loop = pacedLoop();
    const ran: string[] = [];
    loop.pacer.run(() => {
      throw new Error('boom');
    });
    loop.pacer.run(() => ran.push('after'));
    loop.turn();
    expect(ran).toEqual(['after']);
    loop.pacer.run(() => ran.push('later'));
    loop.turn();
    expect(ran).toEqual(['after', 'later']);
  });

  it('queues work added while a slice runs behind what was there, and keeps order over a long burst', () => {
    const loop = pacedLoop(10);
    const ran: number[] = [];
    let next = 0;
    const add = () => {
      const id = next++;
      loop.pacer.run(() => {
        ran.push(id);
        loop.advance(1);
        // Every task adds another until 5,000 have been queued: the queue is compacted on the way.
        if (next < 5_000) add();
      });
    };
    add();
    add();
    let turns = 0;
    while (loop.turn()) turns++;
    expect(ran).toEqual([...Array(5_000).keys()]);
    // 1 ms a task, 10 ms a slice.
    expect(turns).toBe(500);
  });

  it('runs sign-ins before the signed-in lane, each lane in its own order', () => {
    const loop = pacedLoop();
    const ran: string[] = [];
    loop.pacer.run(() => ran.push('snapshot 1'), 'signed-in');
    loop.pacer.run(() => ran.push('hello 1'), 'sign-in');
    loop.pacer.run(() => ran.push('snapshot 2'), 'signed-in');
    loop.pacer.run(() => {
      ran.push('hello 2');
      // A hello arriving mid-slice still goes before the snapshots.
      loop.pacer.run(() => ran.push('hello 3'), 'sign-in');
    }, 'sign-in');
    loop.turn();
    expect(ran).toEqual(['hello 1', 'hello 2', 'hello 3', 'snapshot 1', 'snapshot 2']);
  });

  it('welcomes a hello behind a long backlog of snapshots at the next slice, not after the backlog', () => {
    const loop = pacedLoop();
    const ran: string[] = [];
    // 50 snapshots of 100 ms each: five seconds of work queued before the hello came.
    for (let i = 1; i <= 50; i++)
      loop.pacer.run(() => {
        ran.push(`snapshot ${i}`);
        loop.advance(100);
      }, 'signed-in');
    loop.turn();
    loop.pacer.run(() => ran.push('hello'), 'sign-in');
    while (loop.turn()) {
      // Turns go on until the queues are empty.
    }
    expect(ran.indexOf('hello')).toBe(1);
    expect(ran).toHaveLength(51);
  });
});
