import { describe, expect, it } from 'vitest';
import { createConnectedClients } from './connected-clients';

describe('connected clients', () => {
  it('issues unguessable credentials and verifies only the exact pair of an open client', async () => {
    const clients = createConnectedClients();
    const a = clients.register();
    const b = clients.register();
    expect(a.clientId).not.toBe(b.clientId);
    expect(a.clientToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await clients.verify(a.clientId, a.clientToken)).toBe(true);
    expect(await clients.verify(a.clientId, b.clientToken)).toBe(false);
    expect(await clients.verify(a.clientId, `${a.clientToken}x`)).toBe(false);
    expect(await clients.verify('unknown', a.clientToken)).toBe(false);
    expect(await clients.verify('unknown', '')).toBe(false);
    expect(clients.size).toBe(2);
    clients.unregister(a.clientId);
    expect(clients.has(a.clientId)).toBe(false);
    expect(await clients.verify(a.clientId, a.clientToken)).toBe(false);
  });
});
