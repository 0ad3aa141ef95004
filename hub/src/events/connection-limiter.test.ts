import { describe, expect, it } from 'vitest';
import { createConnectionLimiter } from './connection-limiter';

describe('connection limiter', () => {
  it('caps each address, and each identity across addresses', () => {
    const limiter = createConnectionLimiter({ perIp: 2, perSession: 3 });
    const a1 = limiter.acquire({ ip: 'a', session: 'session:ann' });
    const a2 = limiter.acquire({ ip: 'a', session: 'session:ann' });
    expect([a1.ok, a2.ok]).toEqual([true, true]);
    expect(limiter.acquire({ ip: 'a', session: 'session:bob' })).toEqual({ ok: false, scope: 'ip', limit: 2 });
    expect(limiter.acquire({ ip: 'b', session: 'session:ann' }).ok).toBe(true);
    expect(limiter.acquire({ ip: 'c', session: 'session:ann' })).toEqual({ ok: false, scope: 'session', limit: 3 });
    // A refusal takes nothing: address c is still free for someone else.
    expect(limiter.count('ip', 'c')).toBe(0);
    expect(limiter.acquire({ ip: 'c', session: undefined }).ok).toBe(true);
  });

  it('frees a slot once, however often release is called, and forgets empty buckets', () => {
    const limiter = createConnectionLimiter({ perIp: 1, perSession: 1 });
    const slot = limiter.acquire({ ip: 'a', session: 'api-key:k1' });
    if (!slot.ok) throw new Error('expected a slot');
    const other = limiter.acquire({ ip: 'b', session: undefined });
    slot.release();
    slot.release();
    expect(limiter.count('ip', 'a')).toBe(0);
    expect(limiter.count('session', 'api-key:k1')).toBe(0);
    expect(limiter.count('ip', 'b')).toBe(1);
    expect(other.ok).toBe(true);
    expect(limiter.acquire({ ip: 'a', session: 'api-key:k1' }).ok).toBe(true);
  });
});
