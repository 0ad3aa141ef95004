import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistryClient } from '../../../shared/registry/create-registry-client';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import { type GithubPackagesApi, startGithubPackagesApi } from '../../../test/support/fixtures/github-packages-api';
import { variablesFromEnv } from '../../../test/support/registry-variables';
import type { ProviderVariables } from '../config/provider-variables';
import { createLscrProvider } from './lscr';
import type { RegistryProviderContext, RegistryProviderFactory } from './registry-provider';

const TOKEN = 'ghp_fixture_token';
const PUBLIC: ProviderVariables = { type: 'lscr', name: 'public', values: new Map() };
const WITH_TOKEN = { DD_REGISTRY_LSCR_LS_LOGIN: 'octocat', DD_REGISTRY_LSCR_LS_TOKEN: TOKEN };

const context: RegistryProviderContext = { now: Date.now, fetch: (input, init) => fetch(input, init) };

/**
 * lscr.io as observed (What's Up Docker issue #143): its 401 names a realm on ghcr.io, whose token
 * endpoint answers anonymously for public images. Served in memory: this is the challenge shape the
 * provider's trustedRealmHosts exists for.
 */
function lscrAndGhcr(log: { url: string; authorization: string | undefined }[]): FetchLike {
  return async (input, init) => {
    const url = new URL(input);
    const authorization = (init.headers as Record<string, string> | undefined)?.['authorization'];
    log.push({ url: `${url.host}${url.pathname}`, authorization });
    if (url.host === 'ghcr.io' && url.pathname === '/token') return Response.json({ token: 'djE6bGludXhzZXJ2ZXI=' });
    if (url.host === 'lscr.io' && url.pathname === '/v2/linuxserver/nginx/tags/list') {
      if (authorization === 'Bearer djE6bGludXhzZXJ2ZXI=')
        return Response.json({ name: 'linuxserver/nginx', tags: ['1.26.2-ls290', 'latest'] });
      return Response.json(
        { errors: [{ code: 'UNAUTHORIZED', message: 'authentication required' }] },
        {
          status: 401,
          headers: {
            'www-authenticate':
              'Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:linuxserver/nginx:pull"',
          },
        },
      );
    }
    return new Response(null, { status: 404 });
  };
}

describe('lscr provider', () => {
  it('is an anonymous built-in for lscr.io that vouches for ghcr.io as its token host', async () => {
    const factory: RegistryProviderFactory = createLscrProvider;
    const provider = factory(PUBLIC, context);
    expect(provider.matches('lscr.io')).toBe(true);
    expect(provider.matches('ghcr.io')).toBe(false);
    expect(provider.publishedAt).toBeUndefined();
    expect(await provider.connection('lscr.io')).toEqual({
      insecure: false,
      caFile: undefined,
      trustedRealmHosts: ['ghcr.io'],
      rateLimit: { ratePerSecond: 5, burst: 10 },
      concurrency: 16,
    });
  });

  it('refuses a login without token and shows no secret', () => {
    expect(() => createLscrProvider(variablesFromEnv({ DD_REGISTRY_LSCR_LS_LOGIN: 'octocat' }), context)).toThrow(
      /^DD_REGISTRY_LSCR_LS_LOGIN: /,
    );
    expect(createLscrProvider(variablesFromEnv(WITH_TOKEN), context).maskedConfiguration()).toMatchObject({
      login: 'octocat',
      token: '***',
    });
  });

  it('takes _RATELIMIT', async () => {
    const provider = createLscrProvider(variablesFromEnv({ DD_REGISTRY_LSCR_LS_RATELIMIT: '20/s:40' }), context);
    expect((await provider.connection('lscr.io')).rateLimit).toEqual({ ratePerSecond: 20, burst: 40 });
  });

  it("lets the registry client follow lscr.io's challenge to ghcr.io, and only because it vouches for it", async () => {
    const connection = await createLscrProvider(variablesFromEnv(WITH_TOKEN), context).connection('lscr.io');
    const log: { url: string; authorization: string | undefined }[] = [];
    const client = (trustedRealmHosts?: readonly string[]) =>
      createRegistryClient({
        registry: 'lscr.io',
        credentials: connection.credentials,
        ...(trustedRealmHosts && { trustedRealmHosts }),
        limiter: createConcurrencyLimiter(connection.concurrency),
        fetch: lscrAndGhcr(log),
      });
    expect(await client(connection.trustedRealmHosts).listTags('linuxserver/nginx')).toEqual([
      '1.26.2-ls290',
      'latest',
    ]);
    expect(log.map((entry) => entry.url)).toEqual([
      'lscr.io/v2/linuxserver/nginx/tags/list',
      'ghcr.io/token',
      'lscr.io/v2/linuxserver/nginx/tags/list',
    ]);
    expect(log[1]?.authorization).toBe(`Basic ${btoa(`octocat:${TOKEN}`)}`);
    await expect(client().listTags('linuxserver/nginx')).rejects.toThrow(/token realm ghcr.io is not trusted/);
  });
});

describe('lscr publishedAt against a GitHub packages API fixture', () => {
  let github: GithubPackagesApi;
  beforeEach(async () => {
    github = await startGithubPackagesApi({
      tokens: [TOKEN],
      owners: {
        linuxserver: {
          kind: 'org',
          id: 15_207_290,
          packages: {
            nginx: [
              {
                digest: `sha256:${'1'.repeat(64)}`,
                tags: ['1.26.2-ls290', 'latest'],
                createdAt: '2025-06-10T04:05:06Z',
              },
            ],
          },
        },
      },
    });
  });
  afterEach(() => github.close());

  it('reads the date of ghcr.io/linuxserver/<image> through the GitHub API, trusted', async () => {
    const provider = createLscrProvider(variablesFromEnv(WITH_TOKEN), context, { githubApi: github.url });
    expect(await provider.publishedAt?.('linuxserver/nginx', '1.26.2-ls290')).toEqual({
      date: '2025-06-10T04:05:06Z',
      trusted: true,
    });
    expect(github.requests.map((request) => request.path)).toEqual([
      '/orgs/linuxserver/packages/container/nginx/versions?per_page=100',
    ]);
  });

  it('does not guess for a path lscr.io is not known to mirror', async () => {
    const provider = createLscrProvider(variablesFromEnv(WITH_TOKEN), context, { githubApi: github.url });
    expect(await provider.publishedAt?.('someone/else', '1.0.0')).toBeUndefined();
    expect(github.requests).toHaveLength(0);
  });
});
