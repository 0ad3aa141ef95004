import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DockerHubApi, startDockerHubApi } from '../../../test/support/fixtures/docker-hub-api';
import { configErrorOf, variablesFromEnv } from '../../../test/support/registry-variables';
import type { ProviderVariables } from '../config/provider-variables';
import { createHubProvider } from './hub';
import type { RegistryProviderContext, RegistryProviderFactory } from './registry-provider';

const DIGEST_A = `sha256:${'a'.repeat(64)}`;
const DIGEST_B = `sha256:${'b'.repeat(64)}`;
const PUBLIC: ProviderVariables = { type: 'hub', name: 'public', values: new Map() };

let clock = Date.now();
const context: RegistryProviderContext = { now: () => clock, fetch: (input, init) => fetch(input, init) };

describe('hub provider configuration', () => {
  it('satisfies the factory type of the provider map', () => {
    const factory: RegistryProviderFactory = createHubProvider;
    expect(factory(PUBLIC, context).type).toBe('hub');
  });

  it('works as the anonymous built-in instance, with Docker Hub defaults', async () => {
    const provider = createHubProvider(PUBLIC, context);
    expect(provider.name).toBe('public');
    expect(await provider.connection('docker.io')).toEqual({
      insecure: false,
      caFile: undefined,
      trustedRealmHosts: ['auth.docker.io'],
      rateLimit: { ratePerSecond: 2, burst: 10 },
      concurrency: 16,
    });
  });

  it('matches docker.io only (references are normalised to it)', () => {
    const provider = createHubProvider(PUBLIC, context);
    expect(provider.matches('docker.io')).toBe(true);
    for (const other of ['ghcr.io', 'registry-1.docker.io.evil.com', 'quay.io', '127.0.0.1:5000'])
      expect(provider.matches(other)).toBe(false);
  });

  it('takes LOGIN with PASSWORD or TOKEN as credentials and never shows the secret', async () => {
    const withToken = createHubProvider(
      variablesFromEnv({ DD_REGISTRY_HUB_PRIVATE_LOGIN: 'me', DD_REGISTRY_HUB_PRIVATE_TOKEN: 'dckr_pat_secret' }),
      context,
    );
    expect((await withToken.connection('docker.io')).credentials).toEqual({
      username: 'me',
      password: 'dckr_pat_secret',
    });
    expect(withToken.maskedConfiguration()).toEqual({
      login: 'me',
      password: undefined,
      token: '***',
      ratelimit: undefined,
    });
    const withPassword = createHubProvider(
      variablesFromEnv({ DD_REGISTRY_HUB_PRIVATE_LOGIN: 'me', DD_REGISTRY_HUB_PRIVATE_PASSWORD: 'hunter2' }),
      context,
    );
    expect((await withPassword.connection('docker.io')).credentials).toEqual({ username: 'me', password: 'hunter2' });
    expect(JSON.stringify(withPassword.maskedConfiguration())).not.toContain('hunter2');
  });

  it.each([
    [{ DD_REGISTRY_HUB_PRIVATE_LOGIN: 'me' }, 'DD_REGISTRY_HUB_PRIVATE_LOGIN', /PASSWORD or TOKEN/],
    [{ DD_REGISTRY_HUB_PRIVATE_PASSWORD: 'x' }, 'DD_REGISTRY_HUB_PRIVATE_PASSWORD', /LOGIN/],
    [
      {
        DD_REGISTRY_HUB_PRIVATE_LOGIN: 'me',
        DD_REGISTRY_HUB_PRIVATE_PASSWORD: 'x',
        DD_REGISTRY_HUB_PRIVATE_TOKEN: 'y',
      },
      'DD_REGISTRY_HUB_PRIVATE_TOKEN',
      /not both/,
    ],
    [{ DD_REGISTRY_HUB_PRIVATE_URL: 'https://x' }, 'DD_REGISTRY_HUB_PRIVATE_URL', /unknown option.*known: .*login/],
    [{ DD_REGISTRY_HUB_PRIVATE_INSECURE: 'true' }, 'DD_REGISTRY_HUB_PRIVATE_INSECURE', /https only/],
    [{ DD_REGISTRY_HUB_PRIVATE_RATELIMIT: 'fast' }, 'DD_REGISTRY_HUB_PRIVATE_RATELIMIT', /requests/],
    [{ DD_REGISTRY_HUB_PRIVATE_LOGIN: '' }, 'DD_REGISTRY_HUB_PRIVATE_LOGIN', /empty/],
  ])('refuses %j naming %s', (env, variable, problem) => {
    const error = configErrorOf(() => createHubProvider(variablesFromEnv(env), context));
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(problem);
  });

  it('lets _RATELIMIT override the default bucket or turn it off', async () => {
    const custom = createHubProvider(variablesFromEnv({ DD_REGISTRY_HUB_X_RATELIMIT: '10/s:30' }), context);
    expect((await custom.connection('docker.io')).rateLimit).toEqual({ ratePerSecond: 10, burst: 30 });
    const off = createHubProvider(
      variablesFromEnv({ DD_REGISTRY_HUB_X_RATELIMIT: 'off', DD_REGISTRY_HUB_X_CONCURRENCY: '4' }),
      context,
    );
    expect(await off.connection('docker.io')).toMatchObject({ rateLimit: undefined, concurrency: 4 });
  });
});

describe('hub publishedAt against a Docker Hub API fixture', () => {
  let hub: DockerHubApi;
  beforeEach(async () => {
    clock = Date.now();
    hub = await startDockerHubApi({
      accounts: { me: 'dckr_pat_secret' },
      repositories: {
        'library/nginx': {
          tags: [
            { name: '1.27.3', pushed: '2025-01-02T03:04:05.678Z', digest: DIGEST_A },
            { name: '1.27', pushed: '2025-01-02T03:04:06Z', digest: DIGEST_A },
          ],
        },
        'me/private-app': {
          private: true,
          tags: [{ name: '2.0.0', pushed: '2025-03-01T00:00:00Z', digest: DIGEST_B }],
        },
      },
    });
  });
  afterEach(() => hub.close());

  const provider = (env: Record<string, string> = {}, endpoints: { timeoutMs?: number; cacheTtlMs?: number } = {}) =>
    createHubProvider(Object.keys(env).length > 0 ? variablesFromEnv(env) : PUBLIC, context, {
      hubApi: hub.url,
      ...endpoints,
    });

  it('gives tag_last_pushed as a trusted date, anonymously for a public repository', async () => {
    expect(await provider().publishedAt('library/nginx', '1.27.3')).toEqual({
      date: '2025-01-02T03:04:05.678000Z',
      trusted: true,
    });
    expect(hub.requests).toEqual([
      {
        method: 'GET',
        path: '/v2/namespaces/library/repositories/nginx/tags/1.27.3',
        authorization: undefined,
        status: 200,
      },
    ]);
  });

  it('reads a bare official name under library/ and refuses paths Docker Hub cannot have', async () => {
    const hubProvider = provider();
    expect(await hubProvider.publishedAt('nginx', '1.27')).toMatchObject({ trusted: true });
    expect(await hubProvider.publishedAt('a/b/c', '1')).toBeUndefined();
    expect(hub.requests.map((request) => request.path)).toEqual([
      '/v2/namespaces/library/repositories/nginx/tags/1.27',
    ]);
  });

  it('answers undefined for an unknown tag or repository (404), and remembers that for the cycle', async () => {
    const hubProvider = provider();
    expect(await hubProvider.publishedAt('library/nginx', '9.9.9')).toBeUndefined();
    expect(await hubProvider.publishedAt('nobody/nothing', '1')).toBeUndefined();
    expect(await hubProvider.publishedAt('library/nginx', '9.9.9')).toBeUndefined();
    expect(hub.requests.map((request) => request.status)).toEqual([404, 404]);
  });

  it('shares one request between concurrent callers and reuses it within the TTL', async () => {
    const hubProvider = provider({}, { cacheTtlMs: 60_000 });
    const dates = await Promise.all(
      Array.from({ length: 5 }, () => hubProvider.publishedAt('library/nginx', '1.27.3')),
    );
    expect(new Set(dates.map((date) => date?.date))).toEqual(new Set(['2025-01-02T03:04:05.678000Z']));
    clock += 59_000;
    await hubProvider.publishedAt('library/nginx', '1.27.3');
    expect(hub.requests).toHaveLength(1);
    clock += 2_000;
    await hubProvider.publishedAt('library/nginx', '1.27.3');
    expect(hub.requests).toHaveLength(2);
  });

  it('keeps a date as long as the caller digest matches, and asks again when the tag moved', async () => {
    const hubProvider = provider({}, { cacheTtlMs: 1_000 });
    await hubProvider.publishedAt('library/nginx', '1.27.3', DIGEST_A);
    clock += 24 * 3_600_000;
    expect(await hubProvider.publishedAt('library/nginx', '1.27.3', DIGEST_A)).toMatchObject({ trusted: true });
    expect(hub.requests).toHaveLength(1);
    await hubProvider.publishedAt('library/nginx', '1.27.3', DIGEST_B);
    expect(hub.requests).toHaveLength(2);
  });

  it('answers undefined on 429 and sends nothing until Retry-After has passed', async () => {
    const hubProvider = provider();
    hub.rateLimit(1, 30, { standardHeader: true });
    expect(await hubProvider.publishedAt('library/nginx', '1.27.3')).toBeUndefined();
    expect(await hubProvider.publishedAt('library/nginx', '1.27')).toBeUndefined();
    expect(hub.requests.map((request) => request.status)).toEqual([429]);
    clock += 31_000;
    expect(await hubProvider.publishedAt('library/nginx', '1.27')).toMatchObject({ trusted: true });
    expect(hub.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it('honours the documented X-Retry-After (a Unix time) when Retry-After is absent', async () => {
    const hubProvider = provider();
    hub.rateLimit(1, 120);
    expect(await hubProvider.publishedAt('library/nginx', '1.27.3')).toBeUndefined();
    clock += 60_000;
    expect(await hubProvider.publishedAt('library/nginx', '1.27.3')).toBeUndefined();
    expect(hub.requests).toHaveLength(1);
    clock += 62_000;
    expect(await hubProvider.publishedAt('library/nginx', '1.27.3')).toMatchObject({ trusted: true });
  });

  it('gives up after its timeout when the API never answers, and caches nothing', async () => {
    const hubProvider = provider({}, { timeoutMs: 150 });
    hub.stall = true;
    const started = Date.now();
    expect(await hubProvider.publishedAt('library/nginx', '1.27.3')).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_000);
    hub.stall = false;
    expect(await hubProvider.publishedAt('library/nginx', '1.27.3')).toMatchObject({ trusted: true });
  });

  it('reads a private repository with an access token from the configured login, created once', async () => {
    const hubProvider = provider({
      DD_REGISTRY_HUB_PRIVATE_LOGIN: 'me',
      DD_REGISTRY_HUB_PRIVATE_TOKEN: 'dckr_pat_secret',
    });
    expect(await hubProvider.publishedAt('me/private-app', '2.0.0')).toEqual({
      date: '2025-03-01T00:00:00.000000Z',
      trusted: true,
    });
    expect(await hubProvider.publishedAt('library/nginx', '1.27')).toMatchObject({ trusted: true });
    expect(hub.requests.map((request) => `${request.method} ${request.status}`)).toEqual([
      'POST 200',
      'GET 200',
      'GET 200',
    ]);
    expect(hub.requests[1]?.authorization).toMatch(/^Bearer ey/);
    expect(await provider().publishedAt('me/private-app', '2.0.0')).toBeUndefined();
  });

  it('does not fall back to anonymous when the login is refused, and pauses', async () => {
    const hubProvider = provider({ DD_REGISTRY_HUB_PRIVATE_LOGIN: 'me', DD_REGISTRY_HUB_PRIVATE_PASSWORD: 'wrong' });
    expect(await hubProvider.publishedAt('library/nginx', '1.27')).toBeUndefined();
    expect(await hubProvider.publishedAt('library/nginx', '1.27.3')).toBeUndefined();
    expect(hub.requests.map((request) => `${request.method} ${request.status}`)).toEqual(['POST 401']);
  });
});
