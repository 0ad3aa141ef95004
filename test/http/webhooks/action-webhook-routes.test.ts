import { describe, expect, it } from 'vitest';
import {
  createMemoryHub,
  createServerHub,
  describeRuntimeMatrix,
  expectJsonError,
  type HubClient,
} from '../../support/hub-harness';
import { metric, post, seed } from '../../support/webhook-fixtures';

/**
 * The webhook routes (http-interface §4.11, §5.8, §5.9, §7, §8) without Docker: every status they document.
 * Containers are records put in the store; their watcher is not running, so a resolved
 * container's check answers 503 here (against a real dockerd and registry:
 * test/integration/action-webhooks.test.ts and registry-webhook-e2e.test.ts). The action webhooks
 * first, then what both families share; the registry webhook's own statuses are in
 * ./registry-webhook-routes.test.ts.
 */

const TOKEN = 'ci-token-5f2a9c';
const SECRET = 'registry-hmac-secret';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function auditActions(
  client: HubClient,
  action: string,
): Promise<{ containerName?: string; status?: string; details?: string }[]> {
  return (await (await client.request(`/api/v1/audit?action=${action}`)).json()).data;
}

describeRuntimeMatrix(
  'action webhooks with a shared token',
  (client, mode) => {
    // The records are put into the hub object's container store, which is in this process only in
    // memory and on Node; under workerd only the cases that need no seeded container run.
    it.skipIf(mode === 'workerd')('seeds the records', async () => {
      await seed(client());
    });

    it('answer 401 without a token or with a wrong one, whichever route, and never echo the token', async () => {
      for (const path of ['/api/v1/webhook/watch', '/api/v1/webhook/watch/web', '/api/v1/webhook/update/web']) {
        const missing = await client().request(path, post());
        expect(missing.headers.get('www-authenticate')).toBe('Bearer');
        await expectJsonError(missing, 401);
      }
      const wrong = await client().request('/api/v1/webhook/watch', post(bearer(`${TOKEN}x`)));
      expect(wrong.headers.get('www-authenticate')).toContain('invalid_token');
      const body = await expectJsonError(wrong, 401);
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    });

    // Needs the seeded records (above).
    it.skipIf(mode === 'workerd')(
      'POST /webhook/watch runs every watcher and reports result.coalesced; audited and counted',
      async () => {
        const response = await client().request('/api/v1/webhook/watch', post(bearer(TOKEN)));
        expect(response.status).toBe(200);
        // No Docker in this hub: no watcher runs, and nothing was folded into a running cycle.
        expect(await response.json()).toEqual({
          message: 'Watched 0 watchers',
          result: { watchers: 0, failedWatchers: 0, errors: 0, containers: 7, coalesced: false },
        });
        expect(await auditActions(client(), 'webhook-watch')).toEqual([
          expect.objectContaining({ status: 'succeeded', details: '0 watchers, 0 failed, coalesced: false' }),
        ]);
        expect(await metric(client(), /^dd_webhook_total\{action="watch"\}/)).toBe(
          'dd_webhook_total{action="watch"} 1',
        );
      },
    );

    // Needs the seeded records (above).
    it.skipIf(mode === 'workerd')(
      'answers 404 for an unknown name and 409 for an ambiguous one, listing agent/watcher pairs',
      async () => {
        const unknown = await expectJsonError(
          await client().request('/api/v1/webhook/watch/nope', post(bearer(TOKEN))),
          404,
        );
        expect(unknown.details).toEqual({ containerName: 'nope' });
        const ambiguous = await expectJsonError(
          await client().request('/api/v1/webhook/watch/web', post(bearer(TOKEN))),
          409,
        );
        expect(ambiguous.error).toContain('__local__/east, __local__/local, nas/local');
        expect(ambiguous.details?.candidates).toEqual([
          { agent: '__local__', watcher: 'east' },
          { agent: '__local__', watcher: 'local' },
          { agent: 'nas', watcher: 'local' },
        ]);
        const stillAmbiguous = await client().request(
          '/api/v1/webhook/update/web?agent=__local__',
          post(bearer(TOKEN)),
        );
        await expectJsonError(stillAmbiguous, 409);
      },
    );

    // Needs the seeded records (above).
    it.skipIf(mode === 'workerd')(
      'selects with agent= and watcher=; the resolved container’s watcher is not running here: 503',
      async () => {
        const local = await expectJsonError(
          await client().request('/api/v1/webhook/watch/web?agent=__local__&watcher=east', post(bearer(TOKEN))),
          503,
        );
        expect(local.details).toEqual({ watcher: 'east' });
        const remote = await expectJsonError(
          await client().request('/api/v1/webhook/watch/web?agent=nas', post(bearer(TOKEN))),
          503,
        );
        expect(remote.details).toEqual({ watcher: 'local', agent: 'nas' });
        await expectJsonError(
          await client().request('/api/v1/webhook/watch/web?agent=elsewhere', post(bearer(TOKEN))),
          404,
        );
        await expectJsonError(
          await client().request(`/api/v1/webhook/watch/web?watcher=${'x'.repeat(129)}`, post(bearer(TOKEN))),
          400,
        );
      },
    );

    // Needs the seeded records (above).
    it.skipIf(mode === 'workerd')(
      'answers 403 on both per-container routes for a container labelled dd.webhook.enabled=false',
      async () => {
        for (const route of ['watch', 'update']) {
          const body = await expectJsonError(
            await client().request(`/api/v1/webhook/${route}/private`, post(bearer(TOKEN))),
            403,
          );
          expect(body.error).toContain('dd.webhook.enabled=false');
        }
      },
    );

    // Needs the seeded records (above).
    it.skipIf(mode === 'workerd')(
      'POST /webhook/update goes through the update service’s checks: 400 no update, 503 watcher away, 503 agent not connected',
      async () => {
        const none = await expectJsonError(
          await client().request('/api/v1/webhook/update/app', post(bearer(TOKEN))),
          400,
        );
        expect(none.details).toEqual({ reason: 'no-update-available' });
        // Updatable, but its watcher does not run in this hub (no Docker here).
        await expectJsonError(await client().request('/api/v1/webhook/update/outdated', post(bearer(TOKEN))), 503);
        const agent = await expectJsonError(
          await client().request('/api/v1/webhook/update/remote', post(bearer(TOKEN))),
          503,
        );
        expect(agent.details).toMatchObject({ agent: 'nas', reason: 'agent-not-connected' });
        expect(
          (await auditActions(client(), 'webhook-update')).map((entry) => [entry.containerName, entry.status]),
        ).toEqual([
          ['remote', 'failed'],
          ['outdated', 'failed'],
          ['app', 'failed'],
        ]);
        expect(await metric(client(), /^dd_webhook_total\{action="update"\}/)).toMatch(/ [1-9]\d*$/);
        expect(await metric(client(), /^dd_webhook_total\{action="watch-container"\}/)).toMatch(/ [1-9]\d*$/);
      },
    );

    it('never writes the token into the log', () => {
      expect(JSON.stringify(client().logged)).not.toContain(TOKEN);
    });
  },
  // One Docker action trigger, so an update request gets past the trigger check.
  { DD_SERVER_WEBHOOK_ENABLED: 'true', DD_SERVER_WEBHOOK_TOKEN: TOKEN, DD_ACTION_DOCKER_DEPLOY_BACKUPCOUNT: '1' },
);

describeRuntimeMatrix('webhooks disabled (the default)', (client) => {
  it('answer 403 on every webhook route, whatever the credentials', async () => {
    for (const path of [
      '/api/v1/webhook/watch',
      '/api/v1/webhook/watch/web',
      '/api/v1/webhook/update/web',
      '/api/v1/webhooks/registry',
    ]) {
      const body = await expectJsonError(await client().request(path, post(bearer(TOKEN))), 403);
      expect(body.error).toContain('DD_SERVER_WEBHOOK_ENABLED');
    }
  });
});

describe('webhook configuration at the routes', () => {
  it('per-endpoint tokens: each route takes its own token only', async () => {
    const client = await createMemoryHub({
      DD_SERVER_WEBHOOK_ENABLED: 'true',
      DD_SERVER_WEBHOOK_TOKENS_WATCHALL: 'tok-all',
      DD_SERVER_WEBHOOK_TOKENS_WATCH: 'tok-one',
      DD_SERVER_WEBHOOK_TOKENS_UPDATE: 'tok-upd',
    });
    try {
      await seed(client);
      await expectJsonError(await client.request('/api/v1/webhook/watch', post(bearer('tok-one'))), 401);
      expect((await client.request('/api/v1/webhook/watch', post(bearer('tok-all')))).status).toBe(200);
      await expectJsonError(await client.request('/api/v1/webhook/watch/app', post(bearer('tok-all'))), 401);
      await expectJsonError(await client.request('/api/v1/webhook/watch/app', post(bearer('tok-one'))), 503);
      await expectJsonError(await client.request('/api/v1/webhook/update/app', post(bearer('tok-one'))), 401);
      // No Docker action trigger is configured in this hub.
      const noTrigger = await expectJsonError(
        await client.request('/api/v1/webhook/update/app', post(bearer('tok-upd'))),
        404,
      );
      expect(noTrigger.details).toMatchObject({ reason: 'no-action-trigger' });
    } finally {
      await client.close();
    }
  });

  it('enabled without a token: the action routes answer 500; without a secret: the registry route answers 500', async () => {
    const client = await createMemoryHub({ DD_SERVER_WEBHOOK_ENABLED: 'true' });
    try {
      const action = await expectJsonError(
        await client.request('/api/v1/webhook/watch', post(bearer('anything'))),
        500,
      );
      expect(action.error).toContain('DD_SERVER_WEBHOOK_TOKEN');
      const registry = await expectJsonError(await client.request('/api/v1/webhooks/registry', post({}, '{}')), 500);
      expect(registry.error).toContain('DD_SERVER_WEBHOOK_SECRET');
    } finally {
      await client.close();
    }
  });

  it('container actions disabled: the update webhook answers 403', async () => {
    const client = await createMemoryHub({
      DD_SERVER_WEBHOOK_ENABLED: 'true',
      DD_SERVER_WEBHOOK_TOKEN: TOKEN,
      DD_SERVER_FEATURE_CONTAINERACTIONS: 'false',
    });
    try {
      await seed(client);
      const body = await expectJsonError(await client.request('/api/v1/webhook/update/app', post(bearer(TOKEN))), 403);
      expect(body.error).toContain('DD_SERVER_FEATURE_CONTAINERACTIONS');
    } finally {
      await client.close();
    }
  });
});

describe('webhook rate limits (http-interface §8), per client address on a real socket', () => {
  it('action webhooks: 30 per 15 minutes, then 429 with Retry-After; the server-wide limit does not apply', async () => {
    // A server-wide limit of 5: the webhooks have their own limit and are not counted against it.
    const client = await createServerHub({
      DD_SERVER_WEBHOOK_ENABLED: 'true',
      DD_SERVER_WEBHOOK_TOKEN: TOKEN,
      DD_SERVER_RATELIMIT_MAX: '5',
    });
    try {
      for (let i = 0; i < 30; i++) {
        // Failed tokens count too: guessing is limited.
        const response = await client.request('/api/v1/webhook/watch', post(bearer(i % 2 === 0 ? TOKEN : 'guess')));
        expect(response.status).toBe(i % 2 === 0 ? 200 : 401);
      }
      const limited = await client.request('/api/v1/webhook/watch/web', post(bearer(TOKEN)));
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(800);
      expect(retryAfter).toBeLessThanOrEqual(900);
      const body = await expectJsonError(limited, 429);
      expect(body.details).toMatchObject({ limit: 30, windowSeconds: 900 });
      // The registry webhook has a budget of its own.
      const registry = await client.request('/api/v1/webhooks/registry', post({}, '{}'));
      expect(registry.status).toBe(500);
    } finally {
      await client.close();
    }
  });

  it('registry webhook: 60 per 15 minutes, then 429', async () => {
    const client = await createServerHub({ DD_SERVER_WEBHOOK_ENABLED: 'true', DD_SERVER_WEBHOOK_SECRET: SECRET });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 60; i++)
        statuses.add((await client.request('/api/v1/webhooks/registry', post({}, '{}'))).status);
      expect([...statuses]).toEqual([401]);
      const limited = await client.request('/api/v1/webhooks/registry', post({}, '{}'));
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await expectJsonError(limited, 429)).details).toMatchObject({ limit: 60 });
    } finally {
      await client.close();
    }
  });
});
