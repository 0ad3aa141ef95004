import { expect, it } from 'vitest';
import { describeHubMatrix, expectJsonError } from '../../support/hub-harness';

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
      const text = await (
        await client().request('/metrics', { headers: { authorization: 'Bearer scrape-me' } })
      ).text();
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
