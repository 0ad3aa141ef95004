/**
 * The configuration routes (docs/configuration-file.md) on a hub started without DD_CONFIG_FILE, in
 * memory, on Node and under workerd: read and validate answer everywhere (on Workers from the
 * Worker's variables), while write, reload and the editors are refused with a clear 409. Reload and
 * write with a file, on a real hub process and dockerd: test/integration/config-file.test.ts.
 */
import { expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError, jsonInit } from '../../support/hub-harness';

const ENV = { DD_NOTIFICATION_HTTP_OPS_URL: 'http://127.0.0.1:9/hook-secret-path', DD_AUDIT_MAX_ENTRIES: '500' };

describeRuntimeMatrix(
  'configuration routes without a file',
  (client, mode) => {
    it.skipIf(mode === 'memory')('reads each variable with its source, secrets masked', async () => {
      // The memory harness hands composeHub no configuration source: it has no environment to show.
      const response = await client().request('/api/v1/config');
      expect(response.status).toBe(200);
      const view = await response.json();
      expect(view.file).toBeNull();
      const byName = new Map(view.variables.map((v: { name: string }) => [v.name, v]));
      expect(byName.get('DD_AUDIT_MAX_ENTRIES')).toEqual({ name: 'DD_AUDIT_MAX_ENTRIES', value: '500', source: 'env' });
      expect(byName.get('DD_NOTIFICATION_HTTP_OPS_URL')).toEqual({
        name: 'DD_NOTIFICATION_HTTP_OPS_URL',
        value: 'http://127.0.0.1:9/***',
        source: 'env',
      });
      expect(byName.get('DD_UI_MATURITY_THRESHOLD_DAYS')).toEqual({
        name: 'DD_UI_MATURITY_THRESHOLD_DAYS',
        source: 'default',
      });
      expect(JSON.stringify(view)).not.toContain('hook-secret-path');
      expect(view.effective.audit.maxEntries).toBe(500);
    });

    it('validates a file without applying it: each problem names its variable', async () => {
      const bad = await client().request(
        '/api/v1/config/validate',
        jsonInit('POST', { content: 'DD_LOG_FORMAT: fancy\nDD_X: [1]\n' }),
      );
      expect(bad.status).toBe(200);
      expect(await bad.json()).toEqual({
        valid: false,
        problems: [{ variable: 'DD_X', message: expect.stringContaining('string, a number or a boolean') }],
        variables: ['DD_LOG_FORMAT'],
        overridden: [],
      });
      const port = await (
        await client().request(
          '/api/v1/config/validate',
          jsonInit('POST', { variables: { DD_AUDIT: { RETENTION: { DAYS: 'long' } } } }),
        )
      ).json();
      expect(port.valid).toBe(false);
      expect(port.problems).toEqual([
        { variable: 'DD_AUDIT_RETENTION_DAYS', message: expect.stringContaining('integer') },
      ]);
      const trigger = await (
        await client().request(
          '/api/v1/config/validate',
          jsonInit('POST', { variables: { DD_NOTIFICATION_NOPE_OPS_URL: 'http://x' } }),
        )
      ).json();
      expect(trigger.valid).toBe(false);
      expect(trigger.problems[0].variable).toMatch(/^DD_NOTIFICATION_NOPE/);
      const good = await (
        await client().request(
          '/api/v1/config/validate',
          jsonInit('POST', { content: 'DD_WATCHER:\n  dock:\n    socket: /tmp/x.sock\n    cron: "*/5 * * * *"\n' }),
        )
      ).json();
      expect(good).toEqual({
        valid: true,
        problems: [],
        variables: ['DD_WATCHER_DOCK_CRON', 'DD_WATCHER_DOCK_SOCKET'],
        overridden: [],
      });
      // The environment wins: a value it sets is named, and not checked from the file (the memory hub has no environment).
      if (mode === 'memory') return;
      const shadowed = await (
        await client().request(
          '/api/v1/config/validate',
          jsonInit('POST', { variables: { DD_AUDIT_MAX_ENTRIES: 'x' } }),
        )
      ).json();
      expect(shadowed).toEqual({
        valid: true,
        problems: [],
        variables: ['DD_AUDIT_MAX_ENTRIES'],
        overridden: ['DD_AUDIT_MAX_ENTRIES'],
      });
      await expectJsonError(
        await client().request('/api/v1/config/validate', jsonInit('POST', { content: 'x', variables: {} })),
        400,
      );
    });

    it('refuses write, reload and the editors with 409: no file to write', async () => {
      for (const [path, method, body] of [
        ['/api/v1/config', 'PUT', { content: 'DD_LOG_LEVEL: debug' }],
        ['/api/v1/config/reload', 'POST', undefined],
        ['/api/v1/config/watchers/dock', 'PUT', { values: { socket: '/tmp/x.sock' } }],
        ['/api/v1/config/triggers/http/ops', 'DELETE', undefined],
        ['/api/v1/config/actions/update', 'PUT', { values: { prune: 'true' } }],
      ] as const) {
        const init = body === undefined ? { method } : jsonInit(method, body);
        const error = await expectJsonError(await client().request(path, init), 409);
        expect(error.error).toMatch(/DD_CONFIG_FILE/);
      }
      // Nothing changed: the trigger is still there.
      const triggers = await (await client().request('/api/v1/triggers')).json();
      expect(JSON.stringify(triggers)).toContain('http.ops');
    });
  },
  ENV,
);
