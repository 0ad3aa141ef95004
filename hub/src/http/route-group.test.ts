import { Hono } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { Principal } from '../auth/principal';
import { jsonErrorHandler } from './error-handlers';
import type { HubEnv } from './hub-env';
import { qInt } from './query-params';
import { createRouteGroup } from './route-group';
import { RouteTable } from './route-table';

function appWith(principal: Principal) {
  const table = new RouteTable();
  const group = createRouteGroup(table, '/api/v1');
  group.add(
    {
      method: 'delete',
      path: '/things/:id',
      access: 'containers:delete',
      tag: 't',
      summary: 'x',
      confirm: 'thing-delete',
    },
    (c) => c.json({ deleted: c.req.param('id') }),
  );
  group.add(
    {
      method: 'post',
      path: '/things',
      access: 'session',
      tag: 't',
      summary: 'x',
      body: v.object({ n: v.number() }),
      query: { k: qInt({ min: 1, max: 3, default: 2 }) },
    },
    (c, { body, query }) => c.json({ n: body.n, k: query.k }),
  );
  const app = new Hono<HubEnv>();
  app.use(async (c, next) => {
    c.set('principal', principal);
    await next();
  });
  app.route('/api/v1', group.app);
  app.onError(jsonErrorHandler(createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink })));
  return { app, table };
}

describe('route group', () => {
  it('needs the confirmation header with the exact token (http-interface §4.1)', async () => {
    const { app } = appWith({ kind: 'anonymous' });
    const missing = await app.request('/api/v1/things/1', { method: 'DELETE' });
    expect(missing.status).toBe(428);
    expect((await missing.json()).details).toEqual({ header: 'X-DD-Confirm-Action', expected: 'thing-delete' });
    const wrong = await app.request('/api/v1/things/1', {
      method: 'DELETE',
      headers: { 'X-DD-Confirm-Action': 'thing-delet' },
    });
    expect(wrong.status).toBe(428);
    const ok = await app.request('/api/v1/things/1', {
      method: 'DELETE',
      headers: { 'x-dd-confirm-action': 'thing-delete' },
    });
    expect(await ok.json()).toEqual({ deleted: '1' });
  });

  it('holds keys to their scopes, admin included, and closes session-only routes to keys', async () => {
    const key = (scopes: Extract<Principal, { kind: 'api-key' }>['scopes']) =>
      appWith({ kind: 'api-key', keyId: 'k', scopes }).app;
    const confirm = { method: 'DELETE', headers: { 'X-DD-Confirm-Action': 'thing-delete' } };
    expect((await key(['read']).request('/api/v1/things/1', confirm)).status).toBe(403);
    expect((await key(['containers:delete']).request('/api/v1/things/1', confirm)).status).toBe(200);
    expect((await key(['admin']).request('/api/v1/things/1', confirm)).status).toBe(200);
    const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' };
    expect((await key(['admin']).request('/api/v1/things', post)).status).toBe(403);
  });

  it('validates query and body before the handler runs', async () => {
    const { app, table } = appWith({ kind: 'anonymous' });
    const post = (query: string, body: string) =>
      app.request(`/api/v1/things${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await (await post('', '{"n":5}')).json()).toEqual({ n: 5, k: 2 });
    expect((await post('?k=9', '{"n":5}')).status).toBe(400);
    const invalid = await post('', '{"n":"five"}');
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).details.issues[0]).toMatchObject({ path: 'n' });
    expect(table.allowedMethods('/api/v1/things/abc')).toEqual(['DELETE']);
  });
});
