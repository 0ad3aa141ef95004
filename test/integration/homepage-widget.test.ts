/**
 * Homepage's What's Up Docker widget against a real hub (DD_COMPAT_WUDCARD=true, basic users): the
 * widget's own proxy handler and HTTP client fetch GET /api/containers with the username and
 * password of its configuration, and its component counts what comes back
 * (support/homepage-widget.ts runs the fixture source).
 *
 * Regression: homepage-counts-unwatched. The widget counted a `dd.watch=false` container as
 * monitored; What's Up Docker never lists one, and neither does the compatibility route now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_FAILURE_LIMIT } from '../../hub/src/auth/sign-in-limits';
import { PASSWORD, USERS_ENV } from '../security/auth-fixtures';
import { type HomepageWidget, type HomepageWidgetConfig, loadHomepageWidget } from '../support/homepage-widget';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { cycle, record } from '../support/notification-hub';

const COMPAT = { DD_COMPAT_WUDCARD: 'true' };

describe("Homepage's whatsupdocker widget against the hub", () => {
  let hub: HubClient;
  let widget: HomepageWidget;
  const config = (
    credentials: { username?: string | undefined; password?: string | undefined } = {},
  ): HomepageWidgetConfig => ({
    type: 'whatsupdocker',
    url: hub.url ?? '',
    username: 'alice',
    password: PASSWORD,
    ...credentials,
  });

  beforeAll(async () => {
    widget = await loadHomepageWidget();
    hub = await createServerHub({ ...USERS_ENV, ...COMPAT });
    await cycle(hub, [
      record('web', { from: '1.0.0', to: '2.0.0' }),
      record('db', { from: '15.1', to: '15.2' }),
      record('cache', undefined),
      // dd.watch=false: on the host, not monitored.
      record('sidecar', undefined, { watched: false, labels: { 'dd.watch': 'false' } }),
    ]);
  });

  afterAll(async () => {
    await hub?.close();
  });

  it('shows the watched containers and their updates, signed in with HTTP Basic', async () => {
    const answer = await widget.proxy(config());
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as { name: string }[]).map((c) => c.name).sort()).toEqual(['cache', 'db', 'web']);
    expect(widget.render(answer)).toEqual({
      error: undefined,
      blocks: [
        { label: 'whatsupdocker.monitoring', value: 3 },
        { label: 'whatsupdocker.updates', value: 2 },
      ],
    });
    // The canonical list still has every container; asking the compat route for them all still works.
    const all = await hub.request('/api/containers?kind=all', {
      headers: { authorization: `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}` },
    });
    expect(((await all.json()) as unknown[]).length).toBe(4);
  });

  it('shows an error for a wrong password, a user with a second factor, and no credential', async () => {
    for (const credentials of [
      { password: 'wrong' },
      // bob has a TOTP secret: a password alone is not enough, here as at the sign-in route.
      { username: 'bob', password: 'bob-Pa55word-unique' },
      { username: undefined, password: undefined },
    ]) {
      const answer = await widget.proxy(config(credentials));
      expect(answer.status).toBe(401);
      const shown = widget.render(answer);
      expect(shown.error).toMatchObject({ message: 'HTTP Error' });
      expect(shown.blocks).toEqual([]);
    }
  });

  it('counts failed Basic passwords against the sign-in limits', async () => {
    // A hub of its own: the failures above count against this address too.
    const fresh = await createServerHub({ ...USERS_ENV, ...COMPAT });
    try {
      const guesser = { ...config({ username: 'carol', password: 'guess' }), url: fresh.url ?? '' };
      const statuses: number[] = [];
      for (let i = 0; i < LOGIN_FAILURE_LIMIT + 1; i++) statuses.push((await widget.proxy(guesser)).status);
      expect(statuses.slice(0, LOGIN_FAILURE_LIMIT)).toEqual(Array(LOGIN_FAILURE_LIMIT).fill(401));
      expect(statuses[LOGIN_FAILURE_LIMIT]).toBe(429);
      // The same budget as POST /api/v1/auth/login: refused there too now, the right password included.
      const login = await fresh.request('/api/v1/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'alice', password: PASSWORD }),
      });
      expect(login.status).toBe(429);
    } finally {
      await fresh.close();
    }
  });

  it('is refused by a hub without DD_COMPAT_WUDCARD (410), and Basic is no credential for /api/v1', async () => {
    const plain = await createServerHub(USERS_ENV);
    try {
      const answer = await widget.proxy({ ...config(), url: plain.url ?? '' });
      expect(answer.status).toBe(410);
    } finally {
      await plain.close();
    }
    const canonical = await hub.request('/api/v1/containers', {
      headers: { authorization: `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}` },
    });
    expect(canonical.status).toBe(401);
  });
});
