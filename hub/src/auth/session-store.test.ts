import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createSessionStore, SESSION_IDLE_MS } from './session-store';

describe('session store sweep (the scheduled sessions.expiry job)', () => {
  it('deletes sessions past their idle limit that nobody resolves again, and keeps live ones', async () => {
    const storage = createStorage();
    let now = Date.UTC(2026, 0, 1);
    const sessions = createSessionStore(storage, () => now);
    const abandoned = await sessions.create('alice', 'password');
    const used = await sessions.create('bob', 'password');
    now += SESSION_IDLE_MS - 60_000;
    expect(await sessions.resolve(used)).toMatchObject({ username: 'bob' });
    now += 120_000;
    await sessions.sweep();
    expect(await storage.getKeys('sessions')).toHaveLength(1);
    expect(await sessions.resolve(used)).toMatchObject({ username: 'bob' });
    expect(await sessions.resolve(abandoned)).toBeUndefined();
  });
});
