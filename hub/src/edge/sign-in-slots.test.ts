import { describe, expect, it } from 'vitest';
import { type SignInSlot, SignInSlots } from './sign-in-slots';

const isSlot = (taken: ReturnType<SignInSlots['take']>): taken is SignInSlot => 'release' in taken;

describe('SignInSlots', () => {
  it('refuses past the per-address cap, while other addresses still get slots', () => {
    const slots = new SignInSlots({ perAddress: 2, total: 10 });
    expect(isSlot(slots.take('10.0.0.1', 0))).toBe(true);
    expect(isSlot(slots.take('10.0.0.1', 0))).toBe(true);
    expect(slots.take('10.0.0.1', 0)).toEqual({ refused: 'address', limit: 2 });
    expect(isSlot(slots.take('10.0.0.2', 0))).toBe(true);
    expect(slots.size).toBe(3);
  });

  it('refuses past the total cap, whatever the address', () => {
    const slots = new SignInSlots({ perAddress: 2, total: 3 });
    for (const address of ['a', 'b', 'c']) expect(isSlot(slots.take(address, 0))).toBe(true);
    expect(slots.take('d', 0)).toEqual({ refused: 'total', limit: 3 });
  });

  it('counts callers without an address in one bucket', () => {
    const slots = new SignInSlots({ perAddress: 1, total: 10 });
    expect(isSlot(slots.take(undefined, 0))).toBe(true);
    expect(slots.take(undefined, 0)).toEqual({ refused: 'address', limit: 1 });
  });

  it('frees a slot once, however many of sign-in, close and deadline come', () => {
    const slots = new SignInSlots({ perAddress: 2, total: 10 });
    const first = slots.take('a', 0);
    const second = slots.take('a', 0);
    if (!isSlot(first) || !isSlot(second)) throw new Error('no slot');
    first.release();
    first.release();
    slots.expire(1);
    expect(slots.size).toBe(0);
    // A double release must not have given the address a third slot.
    expect(isSlot(slots.take('a', 2))).toBe(true);
    expect(isSlot(slots.take('a', 2))).toBe(true);
    expect(slots.take('a', 2)).toEqual({ refused: 'address', limit: 2 });
  });

  it('expires the slots taken before the deadline (an upgrade that never opened frees its slot too)', () => {
    const slots = new SignInSlots({ perAddress: 5, total: 5 });
    slots.take('a', 100);
    slots.take('a', 200);
    slots.take('b', 300);
    slots.expire(250);
    expect(slots.size).toBe(1);
    expect(isSlot(slots.take('b', 400))).toBe(true);
    expect(slots.size).toBe(2);
  });
});
