import { expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError, jsonInit } from '../support/hub-harness';

describeRuntimeMatrix(
  'API conventions',
  (client) => {
    it('puts a request id on every response, and echoes a well-formed incoming one', async () => {
      const ok = await client().request('/health');
      expect(ok.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
      const missing = await client().request('/api/v1/nope');
      expect(missing.headers.get('x-request-id')).toBeTruthy();
      const echoed = await client().request('/health', { headers: { 'x-request-id': 'trace-abc-123' } });
      expect(echoed.headers.get('x-request-id')).toBe('trace-abc-123');
    });

    it('answers an unknown route with a JSON 404', async () => {
      const body = await expectJsonError(await client().request('/api/v1/does-not-exist'), 404);
      expect(body.error).toContain('/api/v1/does-not-exist');
      await expectJsonError(await client().request('/nowhere'), 404);
    });

    it('answers a known path with the wrong method with 405 and Allow', async () => {
      const response = await client().request('/api/v1/settings', { method: 'DELETE' });
      expect(response.headers.get('allow')).toBe('GET, HEAD, PATCH, PUT');
      const body = await expectJsonError(response, 405);
      expect(body.details?.allowed).toEqual(['GET', 'HEAD', 'PATCH', 'PUT']);
      await expectJsonError(await client().request('/api/v1/notifications/update-available', { method: 'GET' }), 405);
    });

    it('rejects malformed JSON, a wrong content type and an empty required body', async () => {
      const malformed = await expectJsonError(
        await client().request('/api/v1/settings', jsonInit('PATCH', '{"updateMode":')),
        400,
      );
      expect(malformed.error).toMatch(/malformed json/i);
      const wrongType = await client().request('/api/v1/settings', {
        method: 'PATCH',
        headers: { 'content-type': 'text/plain' },
        body: '{"updateMode":"auto"}',
      });
      await expectJsonError(wrongType, 415);
      const empty = await expectJsonError(await client().request('/api/v1/settings', { method: 'PATCH' }), 400);
      expect(empty.error).toMatch(/body is required/i);
    });

    it('rejects an oversized body with 413 before reading it all', async () => {
      const big = JSON.stringify({ updateMode: 'auto', pad: 'x'.repeat(1024 * 1024 + 10) });
      const body = await expectJsonError(await client().request('/api/v1/settings', jsonInit('PATCH', big)), 413);
      expect(body.details?.maxBytes).toBe(1024 * 1024);
    });

    it('answers every unversioned /api path with 410 and a pointer to /api/v1', async () => {
      for (const path of ['/api', '/api/containers', '/api/settings', '/api/auth/methods', '/api/log/stream']) {
        const body = await expectJsonError(await client().request(path), 410);
        expect(body.details?.canonicalBasePath).toBe('/api/v1');
        expect(body.details?.replacement).toBe(`/api/v1${path.slice(4)}`);
      }
      await expectJsonError(await client().request('/api/settings', jsonInit('PATCH', { updateMode: 'auto' })), 410);
    });

    it('keeps GET /api/auth/status as a permanent alias', async () => {
      const alias = await client().request('/api/auth/status');
      const canonical = await client().request('/api/v1/auth/status');
      expect(alias.status).toBe(200);
      const body = await alias.json();
      expect(body).toEqual(await canonical.json());
      expect(body).toMatchObject({ providers: expect.any(Array), errors: [] });
    });

    it('serves the deprecated GET /auth/strategies with Deprecation and Sunset', async () => {
      const response = await client().request('/auth/strategies');
      expect(response.status).toBe(200);
      expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(Date.parse(response.headers.get('sunset') ?? '')).toBeGreaterThan(Date.now());
      expect(response.headers.get('link')).toContain('/api/v1/auth/status');
      expect(await response.json()).toMatchObject({ strategies: expect.any(Array), warnings: [] });
    });

    it('answers the legacy aggregate stats path with 410', async () => {
      const body = await expectJsonError(await client().request('/api/v1/containers/stats'), 410);
      expect(body.details?.replacement).toBe('/api/v1/stats/summary');
    });

    it('describes itself at /api/v1/app and /api/v1/server without secrets', async () => {
      const app = await (await client().request('/api/v1/app')).json();
      expect(app).toMatchObject({ name: 'dockwatch', version: expect.any(String) });
      const server = await (await client().request('/api/v1/server')).json();
      expect(server).toMatchObject({ version: app.version, uptimeSeconds: expect.any(Number), ready: true });
      expect(server.configuration.server.metricsToken).toBe('***');
      expect(JSON.stringify(server)).not.toContain('s3cr3t-metrics');
    });
  },
  { DD_SERVER_METRICS_TOKEN: 's3cr3t-metrics' },
);

describeRuntimeMatrix(
  'WUD-card compatibility endpoints (DD_COMPAT_WUDCARD=true)',
  (client) => {
    it('serves only the whitelisted legacy routes, through the /api/v1 handlers, as bare arrays', async () => {
      const list = await client().request('/api/containers');
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual([]);
      const watched = await client().request('/api/containers/watch', { method: 'POST' });
      expect(watched.status).toBe(200);
      expect(await watched.json()).toEqual([]);
      // An unknown container gets the /api/v1 handler's 404 unchanged: errors are never reshaped.
      const triggers = await expectJsonError(await client().request('/api/containers/nope/triggers'), 404);
      expect(triggers.error).toContain('nope');
      await expectJsonError(await client().request('/api/settings'), 410);
      await expectJsonError(await client().request('/api/containers', { method: 'DELETE' }), 410);
    });

    it("serves the old card's POST /api/triggers/{type}/{name}: an action trigger names its container in the body", async () => {
      // No container id: nothing to update.
      const noId = await expectJsonError(
        await client().request('/api/triggers/docker/update', jsonInit('POST', { name: 'web' })),
        400,
      );
      expect(noId.error).toContain('id');
      // An id: the per-container action route answers (no such container here).
      const unknown = await expectJsonError(
        await client().request('/api/triggers/docker/update', jsonInit('POST', { id: 'nope', name: 'nope' })),
        404,
      );
      expect(unknown.error).toContain('nope');
      // Any other type is a notification trigger run with the body (none configured here).
      await expectJsonError(await client().request('/api/triggers/http/ops', jsonInit('POST', { id: 'x' })), 404);
    });
  },
  { DD_COMPAT_WUDCARD: 'true' },
);
