import { createStorage, defineDriver } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { composeHub } from '../../../hub/src/compose-hub';
import { loadHubConfig } from '../../../hub/src/config/hub-config';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { describeHubMatrix, expectJsonError } from '../../support/hub-harness';

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

describeHubMatrix(
  'metrics with a token',
  (client) => {
    it('needs the bearer token from anonymous callers', async () => {
      await expectJsonError(await client().request('/metrics'), 401);
      await expectJsonError(await client().request('/metrics', { headers: { authorization: 'Bearer wrong' } }), 401);
      const ok = await client().request('/metrics', { headers: { authorization: 'Bearer scrape-me' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toContain('text/plain');
      const text = await ok.text();
      expect(text).toContain('# TYPE dd_http_requests_total counter');
      expect(text).toMatch(/dd_http_requests_total\{method="GET",route="\/metrics",status="401"\} 2/);
      expect(text).toContain('dd_http_request_duration_seconds_bucket');
      expect(text).not.toContain('scrape-me');
    });

    it('labels requests by route template, never by raw path', async () => {
      await client().request('/api/v1/notifications/whatever-1', { method: 'PATCH' });
      await client().request('/api/v1/notifications/whatever-2', { method: 'PATCH' });
      const text = await (await client().request('/metrics', { headers: { authorization: 'Bearer scrape-me' } })).text();
      expect(text).toContain('route="/api/v1/notifications/:id"');
      expect(text).not.toContain('whatever-1');
    });
  },
  { DD_SERVER_METRICS_TOKEN: 'scrape-me' },
);

describeHubMatrix(
  'metrics without authentication',
  (client) => {
    it('is open when DD_SERVER_METRICS_AUTH=false', async () => {
      const response = await client().request('/metrics');
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('dd_audit_entries_total');
      if (client().mode === 'server') expect(text).toContain('process_cpu_user_seconds_total');
    });
  },
  { DD_SERVER_METRICS_AUTH: 'false', DD_SERVER_METRICS_TOKEN: 'unused' },
);

describeHubMatrix('OpenAPI document', (client) => {
  it('is OpenAPI 3.1.0 and lists every registered route with its scope', async () => {
    const doc = await (await client().request('/api/v1/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const routes = client().hub.parts.routes.routes;
    for (const route of routes) {
      const path = route.fullPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const operation = doc.paths[path]?.[route.spec.method];
      expect(operation, `${route.spec.method} ${path}`).toBeDefined();
      expect(operation['x-required-scope']).toBe(route.spec.access);
    }
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item as object));
    expect(operations).toHaveLength(routes.length);
  });

  it('documents bodies and query parameters from the validating schemas', async () => {
    const doc = await (await client().request('/api/v1/openapi.json')).json();
    const patch = doc.paths['/api/v1/settings'].patch;
    expect(patch['x-required-scope']).toBe('settings:write');
    expect(patch.requestBody.content['application/json'].schema.properties.updateMode.enum).toEqual(['notify', 'manual', 'auto']);
    const audit = doc.paths['/api/v1/audit'].get;
    const limit = audit.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(doc.paths['/api/v1/notifications/{id}'].patch.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    expect(doc.paths['/api/v1/settings'].put.deprecated).toBe(true);
    expect(doc.components.schemas.ErrorBody.required).toEqual(['error']);
  });
});
