import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { silentSink } from '../../shared/logging/logger';
import { startRedisServer } from '../support/redis-server';

describe('the hub on a real redis-server (DD_STORE_DRIVER=redis)', () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  const start = () =>
    startNodeHub({
      env: {
        DD_STORE_DRIVER: 'redis',
        DD_STORE_URL: `unix://${redis.socketPath}`,
        DD_SERVER_PORT: '0',
        DD_SERVER_HOST: '127.0.0.1',
      },
      sink: silentSink,
    });

  it('keeps settings and rules across a restart', async () => {
    const first = await start();
    const patch = (path: string, body: unknown) =>
      fetch(`${first.url}${path}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await patch('/api/v1/settings', { internetlessMode: true })).status).toBe(200);
    expect((await patch('/api/v1/notifications/agent-disconnect', { enabled: true })).status).toBe(200);
    await first.close();

    const second = await start();
    expect(await (await fetch(`${second.url}/api/v1/settings`)).json()).toEqual({
      internetlessMode: true,
      updateMode: 'manual',
      approvalRequired: false,
    });
    const rules = await (await fetch(`${second.url}/api/v1/notifications`)).json();
    expect(rules.data.find((rule: { id: string }) => rule.id === 'agent-disconnect').enabled).toBe(true);
    await second.close();
  });

  it('refuses to start when the server named by DD_STORE_URL is unreachable, without echoing the URL', async () => {
    const failure = startNodeHub({
      env: {
        DD_STORE_DRIVER: 'redis',
        DD_STORE_URL: 'unix:///nonexistent/redis.sock?password=hunter2',
        DD_SERVER_PORT: '0',
      },
      sink: silentSink,
    });
    await expect(failure).rejects.toThrow(/DD_STORE_URL/);
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });
});
