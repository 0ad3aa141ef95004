import { expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError } from '../../support/hub-harness';

const DASHBOARD = 'http://dash.example:8080';

describeRuntimeMatrix(
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
      const text = await (
        await client().request('/metrics', { headers: { authorization: 'Bearer scrape-me' } })
      ).text();
      expect(text).toContain('route="/api/v1/notifications/:id"');
      expect(text).not.toContain('whatever-1');
    });
  },
  { DD_SERVER_METRICS_TOKEN: 'scrape-me' },
);

describeRuntimeMatrix(
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

describeRuntimeMatrix(
  'metrics in OpenMetrics and compat requests',
  (client) => {
    const scrape = async (accept?: string) =>
      client().request('/metrics', accept === undefined ? {} : { headers: { accept } });

    it('answers OpenMetrics 1.0.0 when the scraper prefers it, ended by one # EOF', async () => {
      await client().request('/health');
      const response = await scrape(
        'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
      expect(response.headers.get('vary')).toContain('Accept');
      const text = await response.text();
      expect(text.endsWith('\n# EOF\n')).toBe(true);
      expect(text.match(/^# EOF$/gm)).toHaveLength(1);
      expect(text).toContain('# TYPE dd_http_requests counter');
      expect(text).toMatch(/^dd_http_requests_total\{/m);
      if (client().mode === 'server') {
        expect(text).toContain('# TYPE process_cpu_user_seconds counter');
        expect(text).toMatch(/^process_cpu_user_seconds_total /m);
      }
    });

    it('stays Prometheus text for every other scraper; no gauge named *_total from the Node collectors', async () => {
      for (const accept of [undefined, '*/*', 'text/plain;version=0.0.4']) {
        const response = await scrape(accept);
        expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
        const text = await response.text();
        expect(text).toContain('# TYPE dd_http_requests_total counter');
        expect(text).not.toContain('# EOF');
        expect(text).not.toMatch(/^nodejs_active_\w+_total/m);
        if (client().mode === 'server') expect(text).toMatch(/^nodejs_active_handles\{type=/m);
      }
    });

    // Regression (issue 17): a compat request was counted twice, once as route="unmatched".
    it('counts a compat request once, under the /api/v1 route that served it', async () => {
      expect((await client().request('/api/containers')).status).toBe(200);
      expect((await client().request('/api/containers')).status).toBe(200);
      const text = await (await scrape()).text();
      expect(text).toMatch(/^dd_http_requests_total\{method="GET",route="\/api\/v1\/containers",status="200"\} 2$/m);
      expect(text).not.toContain('route="unmatched"');
      expect(text).toMatch(/^dd_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/containers"\} 2$/m);
    });
  },
  { DD_SERVER_METRICS_AUTH: 'false', DD_COMPAT_WUDCARD: 'true' },
);

// Regression (issue 33, item 16): a CORS preflight reaches no route handler, so it was counted as route="unmatched".
describeRuntimeMatrix(
  'metrics of CORS preflights',
  (client) => {
    const preflight = (origin: string, method: string): RequestInit => ({
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method },
    });

    it('counts a preflight under the route it asks about, answered or refused, compat paths included', async () => {
      const answered: [path: string, method: string, route: string][] = [
        ['/api/v1/notifications/n1', 'PATCH', '/api/v1/notifications/:id'],
        // The route of the asked method, not another one the path also matches (`/containers/:id`).
        ['/api/v1/containers/watch', 'POST', '/api/v1/containers/watch'],
        ['/api/containers', 'GET', '/api/v1/containers'],
      ];
      for (const [path, method] of answered) {
        expect((await client().request(path, preflight(DASHBOARD, method))).status, path).toBe(204);
      }
      // Another origin gets no CORS answer: the preflight falls through to the path's 405.
      expect((await client().request('/api/v1/settings', preflight('http://evil.example', 'PATCH'))).status).toBe(405);
      const text = await (await client().request('/metrics')).text();
      for (const [path, , route] of answered) {
        const line = `dd_http_requests_total{method="OPTIONS",route="${route}",status="204"} 1`;
        expect(text.split('\n'), path).toContain(line);
      }
      expect(text.split('\n')).toContain(
        'dd_http_requests_total{method="OPTIONS",route="/api/v1/settings",status="405"} 1',
      );
      expect(text).toMatch(
        /^dd_http_request_duration_seconds_count\{method="OPTIONS",route="\/api\/v1\/containers"\} 1$/m,
      );
      expect(text).not.toContain('route="unmatched"');
    });
  },
  { DD_SERVER_METRICS_AUTH: 'false', DD_COMPAT_WUDCARD: 'true', DD_SERVER_CORS_ORIGINS: DASHBOARD },
);
