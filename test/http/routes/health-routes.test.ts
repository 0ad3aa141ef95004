import { createStorage, defineDriver } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { composeHub } from '../../../hub/src/compose-hub';
import { loadHubConfig } from '../../../hub/src/config/hub-config';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { expectJsonError } from '../../support/hub-harness';

describe('/health readiness', () => {
  it('answers 503 until stored state is loaded, then 200', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A driver whose reads wait: the hub is "still loading" until the test says so.
    const slowDriver = defineDriver(() => ({
      name: 'slow',
      hasItem: async () => false,
      getItem: async () => {
        await gate;
        return null;
      },
      getKeys: async () => [],
    }))(undefined);
    const config = loadHubConfig({ DD_STORE_DRIVER: 'memory' }, () => '');
    const logRing = createLogRing();
    const hub = composeHub({
      config,
      storage: createStorage({ driver: slowDriver }),
      logger: createLogger({ level: 'info', ring: logRing, sink: silentSink }),
      logRing,
      version: '0.0.0-test',
      runtime: 'test',
    });
    const started = hub.start();
    const loading = await expectJsonError(await hub.app.request('/health'), 503);
    expect(loading.details?.gates).toEqual({ store: 'pending' });
    release();
    await started;
    const ready = await hub.app.request('/health');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', uptime: expect.any(Number) });
  });
});
