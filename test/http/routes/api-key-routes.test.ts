import { expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';

const CONFIRM = { 'X-DD-Confirm-Action': 'api-key-revoke' };
const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

interface Created {
  keyId: string;
  apiKey: string;
  status: string;
  createdBy: string;
  parentKeyId: string | null;
  expiresAt: string | null;
  scopes: string[];
}

/** Every credential handed out in a suite, so the last test can look for it everywhere else. */
const issued: string[] = [];

async function createKey(
  client: HubClient,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Created> {
  const response = await client.request('/api/v1/api-keys', jsonInit('POST', { name: 'test', ...body }, headers));
  const text = await response.text();
  if (response.status !== 201) throw new Error(`expected 201, got ${response.status}: ${text}`);
  const created = JSON.parse(text) as Created;
  issued.push(created.apiKey);
  return created;
}

const revoke = (client: HubClient, keyId: string, headers: Record<string, string> = {}) =>
  client.request(`/api/v1/api-keys/${keyId}`, { method: 'DELETE', headers: { ...CONFIRM, ...headers } });

describeRuntimeMatrix('API keys', (client) => {
  it('creates a key: 201 with the credential once, the resource fields, createdBy user:anonymous', async () => {
    const created = await createKey(client(), { name: 'ci', scopes: ['read', 'read'], rateLimitMax: 500 });
    expect(created.apiKey).toMatch(/^ddk_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      name: 'ci',
      scopes: ['read'],
      status: 'active',
      createdBy: 'user:anonymous',
      parentKeyId: null,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      rateLimitMax: 500,
      displayPrefix: `ddk_${created.keyId}\u2026`,
    });
    expect(created.apiKey.startsWith(`ddk_${created.keyId}_`)).toBe(true);
    expect(created).not.toHaveProperty('digest');
  });

  it('refuses unknown scopes (naming them), a missing or overlong name and invalid expiries with 400', async () => {
    const unknown = await expectJsonError(
      await client().request('/api/v1/api-keys', jsonInit('POST', { name: 'x', scopes: ['read', 'bogus'] })),
      400,
    );
    expect(JSON.stringify(unknown)).toContain('bogus');
    for (const body of [
      { scopes: ['read'] },
      { name: '', scopes: ['read'] },
      { name: 'x'.repeat(101), scopes: ['read'] },
      { name: 'x', scopes: ['read'], expiresAt: 'tomorrow' },
      { name: 'x', scopes: ['read'], expiresAt: '2020-01-01T00:00:00Z' },
      { name: 'x', scopes: ['read'], rateLimitMax: 0 },
      { name: 'x' },
    ]) {
      await expectJsonError(await client().request('/api/v1/api-keys', jsonInit('POST', body)), 400);
    }
  });

  it('holds a key to its scopes: read opens GET settings but not PATCH, nor the key routes; admin does not open them either', async () => {
    const reader = await createKey(client(), { scopes: ['read'] });
    expect((await client().request('/api/v1/settings', { headers: bearer(reader.apiKey) })).status).toBe(200);
    const patch = await expectJsonError(
      await client().request('/api/v1/settings', jsonInit('PATCH', { updateMode: 'auto' }, bearer(reader.apiKey))),
      403,
    );
    expect(patch.details?.requiredScope).toBe('settings:write');
    const admin = await createKey(client(), { scopes: ['admin'] });
    expect((await client().request('/api/v1/settings', jsonInit('PATCH', {}, bearer(admin.apiKey)))).status).toBe(200);
    for (const key of [reader, admin]) {
      const list = await expectJsonError(
        await client().request('/api/v1/api-keys', { headers: bearer(key.apiKey) }),
        403,
      );
      expect(list.details?.requiredScope).toBe('api-keys:manage');
      await expectJsonError(
        await client().request(
          '/api/v1/api-keys',
          jsonInit('POST', { name: 'x', scopes: ['read'] }, bearer(key.apiKey)),
        ),
        403,
      );
      await expectJsonError(await revoke(client(), key.keyId, bearer(key.apiKey)), 403);
    }
  });

  it('keeps lastUsedAt current', async () => {
    const key = await createKey(client(), { scopes: ['read'] });
    await client().request('/api/v1/settings', { headers: bearer(key.apiKey) });
    const page = await (await client().request('/api/v1/api-keys?limit=200')).json();
    const listed = page.data.find((entry: { keyId: string }) => entry.keyId === key.keyId);
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('applies the key ceilings: no scope and no expiry beyond the creating key', async () => {
    const inOneHour = new Date(Date.now() + 3_600_000).toISOString();
    const parent = await createKey(client(), { scopes: ['api-keys:manage', 'read'], expiresAt: inOneHour });
    const as = bearer(parent.apiKey);
    const tooWide = await expectJsonError(
      await client().request(
        '/api/v1/api-keys',
        jsonInit('POST', { name: 'x', scopes: ['settings:write'], expiresAt: inOneHour }, as),
      ),
      403,
    );
    expect(tooWide.error).toMatch(/settings:write/);
    for (const expiresAt of [undefined, null, new Date(Date.now() + 7_200_000).toISOString()]) {
      const outlives = await expectJsonError(
        await client().request('/api/v1/api-keys', jsonInit('POST', { name: 'x', scopes: ['read'], expiresAt }, as)),
        403,
      );
      expect(outlives.error).toMatch(/outlives/);
    }
    const child = await createKey(
      client(),
      { scopes: ['read'], expiresAt: new Date(Date.now() + 1_800_000).toISOString() },
      as,
    );
    expect(child).toMatchObject({ createdBy: `api-key:${parent.keyId}`, parentKeyId: parent.keyId });
    // admin covers every scope but key management, which must be held outright.
    const adminParent = await createKey(client(), { scopes: ['api-keys:manage', 'admin'] });
    await createKey(client(), { scopes: ['settings:write', 'audit:read'] }, bearer(adminParent.apiKey));
    const adminChild = await createKey(client(), { scopes: ['admin'] }, bearer(adminParent.apiKey));
    expect(adminChild.scopes).toEqual(['admin']);
  });

  it('lists newest first by cursor, with no key material, and refuses altered cursors and bad limits', async () => {
    for (let i = 0; i < 5; i++) await createKey(client(), { name: `page-${i}`, scopes: ['read'] });
    const all = await (await client().request('/api/v1/api-keys?limit=200')).json();
    expect(all).toMatchObject({ limit: 200, hasMore: false });
    expect(all).not.toHaveProperty('nextCursor');
    expect(all.data).toHaveLength(all.total);
    expect(all.data[0].name).toBe('page-4');
    const seen: string[] = [];
    let cursor: string | undefined;
    let firstCursor = '';
    do {
      const page = await (
        await client().request(`/api/v1/api-keys?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json();
      expect(page.limit).toBe(2);
      expect(page.total).toBe(all.total);
      for (const entry of page.data) {
        expect(entry).not.toHaveProperty('apiKey');
        expect(entry).not.toHaveProperty('digest');
        seen.push(entry.keyId);
      }
      expect(page.hasMore).toBe(page.nextCursor !== undefined);
      cursor = page.nextCursor;
      firstCursor ||= cursor ?? '';
    } while (cursor);
    expect(seen).toEqual(all.data.map((entry: { keyId: string }) => entry.keyId));
    const defaults = await (await client().request('/api/v1/api-keys')).json();
    expect(defaults.limit).toBe(50);
    for (const bad of [
      `${firstCursor}x`,
      `${firstCursor}=`,
      `${firstCursor}==`,
      firstCursor.slice(0, -1),
      'garbage',
      '%00',
    ]) {
      const body = await expectJsonError(
        await client().request(`/api/v1/api-keys?cursor=${encodeURIComponent(bad)}`),
        400,
      );
      expect(body.details?.parameter).toBe('cursor');
    }
    for (const limit of ['0', '201', 'x'])
      await expectJsonError(await client().request(`/api/v1/api-keys?limit=${limit}`), 400);
  });

  it('revokes three levels deep, named key first; a key cannot revoke itself or its parent', async () => {
    const root = await createKey(client(), { name: 'root', scopes: ['api-keys:manage', 'read'] });
    const child = await createKey(
      client(),
      { name: 'child', scopes: ['api-keys:manage', 'read'] },
      bearer(root.apiKey),
    );
    const grandchild = await createKey(
      client(),
      { name: 'grandchild', scopes: ['api-keys:manage', 'read'] },
      bearer(child.apiKey),
    );
    const greatGrandchild = await createKey(client(), { name: 'ggc', scopes: ['read'] }, bearer(grandchild.apiKey));

    await expectJsonError(await revoke(client(), child.keyId, bearer(child.apiKey)), 403);
    await expectJsonError(await revoke(client(), root.keyId, bearer(child.apiKey)), 403);
    await expectJsonError(await client().request(`/api/v1/api-keys/${root.keyId}`, { method: 'DELETE' }), 428);
    await expectJsonError(await revoke(client(), root.keyId, { 'X-DD-Confirm-Action': 'api-key-delete' }), 428);
    await expectJsonError(await revoke(client(), 'nosuchkey000'), 404);

    const response = await revoke(client(), root.keyId);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      keyId: root.keyId,
      revokedKeyIds: [root.keyId, child.keyId, grandchild.keyId, greatGrandchild.keyId],
      cascadeCount: 3,
    });
    for (const key of [root, child, grandchild, greatGrandchild]) {
      await expectJsonError(await client().request('/api/v1/settings', { headers: bearer(key.apiKey) }), 401);
    }
    const listed = (await (await client().request('/api/v1/api-keys?limit=200')).json()).data;
    const statuses = listed.filter((entry: { keyId: string }) =>
      [root.keyId, child.keyId, grandchild.keyId].includes(entry.keyId),
    );
    expect(
      statuses.map((entry: { status: string; revokedAt: string }) => [entry.status, typeof entry.revokedAt]),
    ).toEqual(Array(3).fill(['revoked', 'string']));
  });

  it('a key may revoke a key it minted', async () => {
    const parent = await createKey(client(), { scopes: ['api-keys:manage', 'read'] });
    const child = await createKey(client(), { scopes: ['read'] }, bearer(parent.apiKey));
    const response = await revoke(client(), child.keyId, bearer(parent.apiKey));
    expect(await response.json()).toEqual({ keyId: child.keyId, revokedKeyIds: [child.keyId], cascadeCount: 0 });
  });

  it('answers every failed key credential with the same 401, without trying the cookie', async () => {
    const good = await createKey(client(), { scopes: ['read'] });
    const revoked = await createKey(client(), { scopes: ['read'] });
    await revoke(client(), revoked.keyId);
    const expiring = await createKey(client(), {
      scopes: ['read'],
      expiresAt: new Date(Date.now() + 1_000).toISOString(),
    });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const wrongSecret = `ddk_${good.keyId}_${'A'.repeat(43)}`;
    const unknown = `ddk_zzzzzzzzzzzz_${good.apiKey.slice(-43)}`;
    const bodies: string[] = [];
    for (const credential of [unknown, wrongSecret, revoked.apiKey, expiring.apiKey, 'ddk_not-a-key', 'not-a-key']) {
      const response = await client().request('/api/v1/settings', {
        headers: { ...bearer(credential), cookie: 'dd.sid=whatever' },
      });
      expect(response.status).toBe(401);
      bodies.push(await response.text());
    }
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0] as string)).toEqual({ error: 'Invalid API key' });
    // Only routes with a token of their own read other Bearer values as theirs.
    expect((await client().request('/metrics', { headers: bearer('metrics-token') })).status).toBe(200);
    const audit = await (await client().request('/api/v1/audit?action=api-key-auth-failed')).json();
    expect(audit.total).toBe(1);
  });

  it('answers 429 with Retry-After past the key rateLimitMax', async () => {
    const key = await createKey(client(), { scopes: ['read'], rateLimitMax: 3 });
    for (let i = 0; i < 3; i++)
      expect((await client().request('/api/v1/settings', { headers: bearer(key.apiKey) })).status).toBe(200);
    const response = await client().request('/api/v1/settings', { headers: bearer(key.apiKey) });
    await expectJsonError(response, 429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('audits creation and revocation, and never shows a secret again (responses, audit, logs)', async () => {
    const audit = await (
      await client().request('/api/v1/audit?actions=api-key-created,api-key-revoked&limit=200')
    ).json();
    expect(audit.data.some((entry: { action: string }) => entry.action === 'api-key-created')).toBe(true);
    expect(audit.data.some((entry: { action: string }) => entry.action === 'api-key-revoked')).toBe(true);
    const everything = [
      await (await client().request('/api/v1/audit?limit=200')).text(),
      await (await client().request('/api/v1/api-keys?limit=200')).text(),
      JSON.stringify(client().logged),
    ].join('\n');
    expect(issued.length).toBeGreaterThan(10);
    for (const apiKey of issued) expect(everything).not.toContain(apiKey.slice(-43));
  });
});
