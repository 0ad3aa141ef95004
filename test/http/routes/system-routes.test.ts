import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerRecord } from '../../support/container-fixture';
import {
  createMemoryHub,
  describeHubMatrix,
  expectJsonError,
  type HubClient,
  jsonInit,
} from '../../support/hub-harness';
import { BASIC_AUTH_ENV, HASH, PASSWORD, RECOVERY, TOTP_SECRET } from '../support/basic-auth-users';

/** Secrets seeded through the configuration; none may appear anywhere in an answer. */
const CONFIGURED_SECRETS = {
  registryPassword: 'mirror-s3cret-pw',
  registryToken: 'ghcr-t0ken-value',
  webhookToken: 'webhook-t0ken-value',
  webhookSecret: 'hmac-s3cret-value',
  metricsToken: 'metrics-t0ken-value',
  notificationPassword: 'n0tif-pass-word',
  notificationPathToken: 'T0KEN-IN-PATH-42',
  notificationBearer: 'bearer-s3cret-xyz',
  oidcClientSecret: 'oidc-client-s3cret',
  totp: TOTP_SECRET,
  recovery: RECOVERY[0] as string,
  password: PASSWORD,
  hash: HASH,
};

const ENV = {
  ...BASIC_AUTH_ENV,
  DD_AUTH_OIDC_CORP_DISCOVERY: 'https://id.example.test/.well-known/openid-configuration',
  DD_AUTH_OIDC_CORP_CLIENTID: 'dockwatch',
  DD_AUTH_OIDC_CORP_CLIENTSECRET: CONFIGURED_SECRETS.oidcClientSecret,
  DD_AUTH_OIDC_CORP_REDIRECT: 'https://hub.example.test/api/v1/auth/oidc/corp/callback',
  DD_REGISTRY_CUSTOM_MIRROR_URL: 'https://mirror.example.test',
  DD_REGISTRY_CUSTOM_MIRROR_LOGIN: 'bot',
  DD_REGISTRY_CUSTOM_MIRROR_PASSWORD: CONFIGURED_SECRETS.registryPassword,
  DD_REGISTRY_GHCR_PRIVATE_LOGIN: 'me',
  DD_REGISTRY_GHCR_PRIVATE_TOKEN: CONFIGURED_SECRETS.registryToken,
  DD_SERVER_WEBHOOK_ENABLED: 'true',
  DD_SERVER_WEBHOOK_TOKEN: CONFIGURED_SECRETS.webhookToken,
  DD_SERVER_WEBHOOK_SECRET: CONFIGURED_SECRETS.webhookSecret,
  DD_SERVER_METRICS_TOKEN: CONFIGURED_SECRETS.metricsToken,
  DD_NOTIFICATION_HTTP_ALERTS_URL: `https://notifier:${CONFIGURED_SECRETS.notificationPassword}@hooks.example.test/services/${CONFIGURED_SECRETS.notificationPathToken}`,
  DD_NOTIFICATION_HTTP_ALERTS_BEARER: CONFIGURED_SECRETS.notificationBearer,
};

async function signIn(client: HubClient): Promise<string> {
  const response = await client.request(
    '/api/v1/auth/login',
    jsonInit('POST', { username: 'alice', password: PASSWORD }),
  );
  expect(response.status).toBe(200);
  const cookie = /dd\.sid=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('no session cookie');
  return cookie;
}

describeHubMatrix(
  'system routes',
  (client) => {
    let session: string;
    let apiKey: string;
    let adminKey: string;
    const asAlice = (init: RequestInit = {}): RequestInit => ({
      ...init,
      headers: { ...(init.headers as Record<string, string>), cookie: `dd.sid=${session}` },
    });
    const keyed = (key: string): RequestInit => ({ headers: { authorization: `Bearer ${key}` } });

    beforeAll(async () => {
      session = await signIn(client());
      const create = async (scopes: string[]) => {
        const response = await client().request(
          '/api/v1/api-keys',
          asAlice(jsonInit('POST', { name: `dump-${scopes.join('-')}`, scopes })),
        );
        expect(response.status).toBe(201);
        return (await response.json()).apiKey as string;
      };
      apiKey = await create(['read']);
      adminKey = await create(['admin']);
      // Something in the audit and the log besides the sign-in: a refused key, a watched request.
      expect((await client().request('/api/v1/settings', keyed(`${apiKey}x`))).status).toBe(401);
    });

    it('GET /authentications lists basic users and OIDC providers with every secret masked', async () => {
      const response = await client().request('/api/v1/authentications', keyed(apiKey));
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.anonymous).toBe(false);
      expect(body.total).toBe(3);
      expect(body.data).toEqual([
        {
          id: 'basic.alice',
          type: 'basic',
          name: 'alice',
          configuration: { username: 'alice', hash: '***', totp: false, recoveryCodes: 0 },
        },
        {
          id: 'basic.bob',
          type: 'basic',
          name: 'bob',
          configuration: { username: 'bob', hash: '***', totp: true, recoveryCodes: 2 },
        },
        {
          id: 'oidc.corp',
          type: 'oidc',
          name: 'corp',
          configuration: {
            // URLs as the secret table shows them: scheme and host (docs/security.md "What is secret").
            discovery: 'https://id.example.test/***',
            clientId: 'dockwatch',
            clientSecret: '***',
            redirect: 'https://hub.example.test/***',
          },
        },
      ]);
    });

    it('GET /store names the storage, counts its records and shows the icon cache', async () => {
      const response = await client().request('/api/v1/store', keyed(apiKey));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        driver: 'memory',
        configuration: {},
        persistent: false,
        records: { containers: 0, auditEntries: expect.any(Number), apiKeys: 2 },
        iconCache: { entries: 0, bytes: 0, maxEntries: 500, maxBytes: 16 * 1024 * 1024 },
      });
    });

    it('GET /server/security/runtime tells the protections in force, with no warning on this setup', async () => {
      const response = await client().request('/api/v1/server/security/runtime', keyed(apiKey));
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body).toMatchObject({
        runtime: expect.any(String),
        authentication: {
          anonymous: false,
          basicUsers: 2,
          basicUsersWithTotp: 1,
          oidcProviders: 1,
          activeApiKeys: 2,
          sessionCookie: { sameSite: 'lax', idleHours: 12, maxDays: 7 },
        },
        listener: { host: expect.any(String), trustProxy: 0 },
        metrics: { authRequired: true, token: true },
        webhooks: { enabled: true, scheme: 'shared-token', registrySignature: true },
        features: { containerActions: true, delete: false },
        scanner: { enabled: false, status: 'not-configured', blockSeverity: null },
        warnings: [],
      });
      expect(Date.parse(body.checkedAt)).not.toBeNaN();
    });

    it('GET /debug/dump is an attachment holding the support data, with every seeded secret redacted, and is audited', async () => {
      const response = await client().request('/api/v1/debug/dump', asAlice());
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toMatch(
        /^attachment; filename="dockwatch-debug-\d{4}-\d\d-\d\dT[\d-]+Z\.json"$/,
      );
      expect(response.headers.get('cache-control')).toBe('no-store');
      const text = await response.text();
      const dump = JSON.parse(text);
      // What support needs is there…
      expect(dump.server).toMatchObject({ name: 'dockwatch', version: expect.any(String), ready: true });
      expect(dump.settings).toEqual({ internetlessMode: false, updateMode: 'manual', approvalRequired: false });
      expect(dump.store.records.apiKeys).toBe(2);
      expect(dump.authentications.data.map((entry: { id: string }) => entry.id)).toEqual([
        'basic.alice',
        'basic.bob',
        'oidc.corp',
      ]);
      expect(dump.registries.map((registry: { id: string }) => registry.id)).toEqual(
        expect.arrayContaining(['custom.mirror', 'ghcr.private']),
      );
      expect(dump.triggers.map((trigger: { id: string }) => trigger.id)).toContain('http.alerts');
      expect(dump.containers).toEqual({ total: 0, updatesAvailable: 0, byWatcher: {} });
      expect(dump.log.length).toBeGreaterThan(0);
      expect(dump.audit.some((entry: { action: string }) => entry.action === 'auth-login')).toBe(true);
      expect(dump.securityRuntime.webhooks.scheme).toBe('shared-token');
      // …and no secret, wherever it could have landed.
      const [, keyId, keySecret] = /^ddk_([a-z0-9]+)_(.+)$/.exec(apiKey) ?? [];
      expect(keyId).toBeTruthy();
      const secrets = {
        ...CONFIGURED_SECRETS,
        apiKey,
        apiKeySecret: keySecret as string,
        adminKey,
        adminKeySecret: adminKey.split('_').slice(2).join('_'),
        session,
      };
      for (const [what, secret] of Object.entries(secrets)) expect(text, what).not.toContain(secret);
      expect(text).not.toMatch(/notifier:[^*]/);
      // The audit says who downloaded it.
      const audit = await (await client().request('/api/v1/audit?action=debug-dump', asAlice())).json();
      expect(audit.data[0]).toMatchObject({
        action: 'debug-dump',
        status: 'success',
        details: expect.stringContaining('user:alice'),
      });
    });

    it('GET /debug/dump needs admin: a read key gets 403, an admin key gets the dump and is named in the audit', async () => {
      const refused = await expectJsonError(await client().request('/api/v1/debug/dump', keyed(apiKey)), 403);
      expect(refused.details?.requiredScope).toBe('admin');
      expect((await client().request('/api/v1/debug/dump')).status).toBe(401);
      const dumped = await client().request('/api/v1/debug/dump', keyed(adminKey));
      expect(dumped.status).toBe(200);
      expect(await dumped.text()).not.toContain(adminKey.split('_').slice(2).join('_'));
      const audit = await (await client().request('/api/v1/audit?action=debug-dump', asAlice())).json();
      const adminKeyId = adminKey.split('_')[1];
      expect(audit.data[0].details).toContain(`api-key:${adminKeyId}`);
      // A HEAD sends no dump, and is not recorded as a download.
      const head = await client().request('/api/v1/debug/dump', { ...keyed(adminKey), method: 'HEAD' });
      expect(head.status).toBe(200);
      const after = await (await client().request('/api/v1/audit?action=debug-dump', asAlice())).json();
      expect(after.total).toBe(audit.total);
    });

    it('no secret comes back from the read routes either', async () => {
      for (const path of [
        '/api/v1/store',
        '/api/v1/authentications',
        '/api/v1/server/security/runtime',
        '/api/v1/server',
      ]) {
        const text = await (await client().request(path, keyed(apiKey))).text();
        for (const [what, secret] of Object.entries(CONFIGURED_SECRETS))
          expect(text, `${path} ${what}`).not.toContain(secret);
      }
    });
  },
  ENV,
);

describe('security runtime warnings', () => {
  let hub: HubClient;
  afterAll(async () => {
    await hub?.close();
  });

  it('warns of each weakened protection: anonymous on a public address, open metrics, SameSite=none, webhooks without credentials, hooks', async () => {
    hub = await createMemoryHub({
      DD_SERVER_HOST: '0.0.0.0',
      DD_SERVER_METRICS_AUTH: 'false',
      DD_SERVER_COOKIE_SAMESITE: 'none',
      DD_SERVER_WEBHOOK_ENABLED: 'true',
      DD_HOOKS_ENABLED: 'true',
      DD_SECURITY_SCANNER: 'osv',
      DD_SECURITY_BLOCK_SEVERITY: 'high',
    });
    const body = await (await hub.request('/api/v1/server/security/runtime')).json();
    expect(body.authentication.anonymous).toBe(true);
    expect(body.scanner).toEqual({ enabled: true, status: 'configured', name: 'osv', blockSeverity: 'high' });
    expect(body.warnings).toHaveLength(6);
    for (const hint of [
      'anonymous mode while listening on 0.0.0.0',
      'METRICS_AUTH',
      'SAMESITE',
      'WEBHOOK_TOKEN',
      'WEBHOOK_SECRET',
      'HOOKS',
    ]) {
      expect(body.warnings.join('\n')).toContain(hint);
    }
    const authentications = await (await hub.request('/api/v1/authentications')).json();
    expect(authentications).toEqual({ anonymous: true, data: [], total: 0 });
  });
});

describe('GET /api/v1/server: the hub’s own container (the system page offers its update)', () => {
  let hub: HubClient | undefined;
  afterAll(async () => {
    await hub?.close();
  });

  it('is null outside a container, and the record of the container the hub runs in otherwise', async () => {
    const self = containerRecord({ id: 'c'.repeat(64), name: 'dockwatch-hub' });
    const candidate = { ...self, updateAvailable: true, result: { tag: '1.1.0' } };
    const outside = await createMemoryHub();
    try {
      expect((await (await outside.request('/api/v1/server')).json()).selfContainer).toBeNull();
    } finally {
      await outside.close();
    }
    hub = await createMemoryHub({}, { selfContainerId: self.id });
    await hub.hub.parts.containers.put(candidate);
    expect((await (await hub.request('/api/v1/server')).json()).selfContainer).toEqual({
      id: self.id,
      name: 'dockwatch-hub',
      tag: '1.0.0',
      updateAvailable: true,
      candidate: '1.1.0',
    });
  });
});
