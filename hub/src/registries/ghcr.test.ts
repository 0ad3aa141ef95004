import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import {
  type GithubFixtureVersion,
  type GithubPackagesApi,
  startGithubPackagesApi,
} from '../../../test/support/fixtures/github-packages-api';
import { variablesFromEnv } from '../../../test/support/registry-variables';
import type { ProviderVariables } from '../config/provider-variables';
import { createGhcrProvider, createGithubPackageDates, type GithubEndpoints } from './ghcr';
import type { RegistryProviderContext, RegistryProviderFactory } from './registry-provider';

const TOKEN = 'ghp_fixture_token';
const PUBLIC: ProviderVariables = { type: 'ghcr', name: 'public', values: new Map() };
const WITH_TOKEN = { DD_REGISTRY_GHCR_PRIVATE_LOGIN: 'octocat', DD_REGISTRY_GHCR_PRIVATE_TOKEN: TOKEN };

const digest = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
/** `count` versions, newest first, tagged `1.0.<count-1-i>`, one day apart. */
function versions(count: number): GithubFixtureVersion[] {
  return Array.from({ length: count }, (_, i) => ({
    digest: digest(i + 1),
    tags: [`1.0.${count - 1 - i}`],
    createdAt: new Date(Date.UTC(2025, 0, 1) - i * 86_400_000).toISOString(),
  }));
}

let clock = Date.now();
const context: RegistryProviderContext = { now: () => clock, fetch: (input, init) => fetch(input, init) };

describe('ghcr provider configuration', () => {
  it('satisfies the factory type and works as the anonymous built-in, without dates', async () => {
    const factory: RegistryProviderFactory = createGhcrProvider;
    const provider = factory(PUBLIC, context);
    expect(provider.publishedAt).toBeUndefined();
    expect(await provider.connection('ghcr.io')).toEqual({
      insecure: false,
      caFile: undefined,
      rateLimit: { ratePerSecond: 2, burst: 10 },
      concurrency: 16,
    });
  });

  it('matches ghcr.io only', () => {
    const provider = createGhcrProvider(PUBLIC, context);
    expect(provider.matches('ghcr.io')).toBe(true);
    expect(provider.matches('lscr.io')).toBe(false);
    expect(provider.matches('docker.io')).toBe(false);
  });

  it('uses LOGIN + TOKEN for the registry and the packages API, masked', async () => {
    const provider = createGhcrProvider(variablesFromEnv(WITH_TOKEN), context);
    expect((await provider.connection('ghcr.io')).credentials).toEqual({ username: 'octocat', password: TOKEN });
    expect(provider.publishedAt).toBeTypeOf('function');
    expect(provider.maskedConfiguration()).toEqual({
      login: 'octocat',
      password: undefined,
      token: '***',
      ratelimit: undefined,
    });
  });

  it('refuses a token without LOGIN, and unknown keys, naming the variable', () => {
    expect(() => createGhcrProvider(variablesFromEnv({ DD_REGISTRY_GHCR_X_TOKEN: TOKEN }), context)).toThrow(
      ConfigError,
    );
    expect(() => createGhcrProvider(variablesFromEnv({ DD_REGISTRY_GHCR_X_TOKEN: TOKEN }), context)).toThrow(
      /^DD_REGISTRY_GHCR_X_TOKEN: needs LOGIN/,
    );
    expect(() => createGhcrProvider(variablesFromEnv({ DD_REGISTRY_GHCR_X_LOGIN: 'octocat' }), context)).toThrow(
      /^DD_REGISTRY_GHCR_X_LOGIN: /,
    );
    expect(() => createGhcrProvider(variablesFromEnv({ DD_REGISTRY_GHCR_X_REGION: 'eu' }), context)).toThrow(
      /^DD_REGISTRY_GHCR_X_REGION: unknown option/,
    );
  });

  it('takes _RATELIMIT', async () => {
    const provider = createGhcrProvider(variablesFromEnv({ DD_REGISTRY_GHCR_X_RATELIMIT: '1/s' }), context);
    expect((await provider.connection('ghcr.io')).rateLimit).toEqual({ ratePerSecond: 1, burst: 5 });
  });
});

describe('ghcr publishedAt against a GitHub packages API fixture', () => {
  let github: GithubPackagesApi;
  beforeEach(async () => {
    clock = Date.now();
    github = await startGithubPackagesApi({
      tokens: [TOKEN],
      owners: {
        acme: {
          kind: 'org',
          id: 4242,
          packages: {
            app: [
              { digest: digest(0xa), tags: ['2.1.0', 'latest'], createdAt: '2025-05-06T07:08:09Z' },
              { digest: digest(0xb), tags: [], createdAt: '2025-05-05T00:00:00Z' },
              { digest: digest(0xc), tags: ['2.0.0'], createdAt: '2025-04-01T00:00:00Z' },
            ],
            big: versions(250),
            'tools/cli': [{ digest: digest(0xd), tags: ['0.3.0'], createdAt: '2025-02-02T02:02:02Z' }],
          },
        },
        octocat: {
          kind: 'user',
          id: 583231,
          packages: { dotfiles: [{ digest: digest(0xe), tags: ['1.0.0'], createdAt: '2024-12-24T12:00:00Z' }] },
        },
      },
    });
  });
  afterEach(() => github.close());

  const provider = (endpoints: GithubEndpoints = {}, env: Record<string, string> = WITH_TOKEN) => {
    const publishedAt = createGhcrProvider(variablesFromEnv(env), context, {
      githubApi: github.url,
      ...endpoints,
    }).publishedAt;
    if (!publishedAt) throw new Error('publishedAt expected with a token');
    return publishedAt;
  };
  const paths = () => github.requests.map((request) => request.path);

  it("gives the created_at of the version carrying the tag, trusted, with GitHub's headers", async () => {
    expect(await provider()('acme/app', '2.1.0')).toEqual({ date: '2025-05-06T07:08:09Z', trusted: true });
    expect(paths()).toEqual(['/orgs/acme/packages/container/app/versions?per_page=100']);
    expect(github.requests[0]?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    });
  });

  it('falls back from orgs to users on 404 and remembers the owner kind', async () => {
    const publishedAt = provider();
    expect(await publishedAt('octocat/dotfiles', '1.0.0')).toEqual({ date: '2024-12-24T12:00:00Z', trusted: true });
    expect(await publishedAt('octocat/dotfiles', 'missing')).toBeUndefined();
    expect(paths()).toEqual([
      '/orgs/octocat/packages/container/dotfiles/versions?per_page=100',
      '/users/octocat/packages/container/dotfiles/versions?per_page=100',
      '/users/octocat/packages/container/dotfiles/versions?per_page=100',
    ]);
  });

  it('follows Link rel="next" as given (GitHub links by owner id) until the tag shows up', async () => {
    expect(await provider()('acme/big', '1.0.10')).toEqual({
      date: versions(250)[239]?.createdAt.replace('.000Z', 'Z'),
      trusted: true,
    });
    expect(paths()).toEqual([
      '/orgs/acme/packages/container/big/versions?per_page=100',
      '/organizations/4242/packages/container/big/versions?per_page=100&page=2',
      '/organizations/4242/packages/container/big/versions?per_page=100&page=3',
    ]);
  });

  it('stops after maxPages and answers undefined', async () => {
    expect(await provider({ maxPages: 2 })('acme/big', '1.0.10')).toBeUndefined();
    expect(paths()).toHaveLength(2);
  });

  it('caches every tag seen on the pages it read, so other candidates cost nothing', async () => {
    const publishedAt = provider();
    await publishedAt('acme/app', '2.1.0');
    expect(await publishedAt('acme/app', '2.0.0')).toEqual({ date: '2025-04-01T00:00:00Z', trusted: true });
    expect(await publishedAt('acme/app', 'latest')).toEqual({ date: '2025-05-06T07:08:09Z', trusted: true });
    expect(paths()).toHaveLength(1);
  });

  it('URL-encodes a package name holding slashes', async () => {
    expect(await provider()('acme/tools/cli', '0.3.0')).toMatchObject({ trusted: true });
    expect(paths()).toEqual(['/orgs/acme/packages/container/tools%2Fcli/versions?per_page=100']);
  });

  it('answers undefined for an unknown package and remembers it for the TTL only', async () => {
    const publishedAt = provider({ cacheTtlMs: 10_000 });
    expect(await publishedAt('acme/ghost', '1.0.0')).toBeUndefined();
    expect(await publishedAt('acme/ghost', '1.0.0')).toBeUndefined();
    expect(github.requests.map((request) => request.status)).toEqual([404, 404]);
    clock += 11_000;
    await publishedAt('acme/ghost', '1.0.0');
    expect(github.requests).toHaveLength(4);
  });

  it('reuses a date while the digest matches, and asks again once the tag points elsewhere', async () => {
    const publishedAt = provider({ cacheTtlMs: 1_000 });
    await publishedAt('acme/app', '2.1.0', digest(0xa));
    clock += 86_400_000;
    await publishedAt('acme/app', '2.1.0', digest(0xa));
    expect(github.requests).toHaveLength(1);
    await publishedAt('acme/app', '2.1.0', digest(0xf));
    expect(github.requests).toHaveLength(2);
  });

  it('pauses a minute after a refused token (401) instead of asking for every tag', async () => {
    const publishedAt = provider({}, { DD_REGISTRY_GHCR_X_LOGIN: 'octocat', DD_REGISTRY_GHCR_X_TOKEN: 'ghp_revoked' });
    expect(await publishedAt('acme/app', '2.1.0')).toBeUndefined();
    expect(await publishedAt('acme/app', '2.0.0')).toBeUndefined();
    expect(github.requests.map((request) => request.status)).toEqual([401]);
    // A minute, not until the rate-limit reset every GitHub answer announces.
    clock += 61_000;
    await publishedAt('acme/app', '2.0.0');
    expect(github.requests.map((request) => request.status)).toEqual([401, 401]);
  });

  it('pauses on an exhausted budget (403, remaining 0) and on a secondary limit until retry-after', async () => {
    const publishedAt = provider();
    github.rateLimit(1, 'primary');
    expect(await publishedAt('acme/app', '2.1.0')).toBeUndefined();
    expect(await publishedAt('acme/app', '2.1.0')).toBeUndefined();
    expect(github.requests.map((request) => request.status)).toEqual([403]);

    const secondary = provider();
    github.rateLimit(1, 'secondary', 20);
    expect(await secondary('acme/app', '2.1.0')).toBeUndefined();
    clock += 10_000;
    expect(await secondary('acme/app', '2.1.0')).toBeUndefined();
    clock += 11_000;
    expect(await secondary('acme/app', '2.1.0')).toMatchObject({ trusted: true });
    expect(github.requests.map((request) => request.status)).toEqual([403, 429, 200]);
  });

  it('gives up after its timeout when the API never answers', async () => {
    const publishedAt = provider({ timeoutMs: 150 });
    github.stall = true;
    expect(await publishedAt('acme/app', '2.1.0')).toBeUndefined();
    github.stall = false;
    expect(await publishedAt('acme/app', '2.1.0')).toMatchObject({ trusted: true });
  });

  it('never follows a Link to another origin with the token', async () => {
    const seen: string[] = [];
    const publishedAt = createGithubPackageDates({
      githubApi: 'https://api.github.com',
      token: TOKEN,
      now: () => clock,
      limiter: createConcurrencyLimiter(1),
      fetch: async (input) => {
        seen.push(input);
        return Response.json([], { headers: { link: '<https://collector.example/steal?page=2>; rel="next"' } });
      },
    });
    expect(await publishedAt('acme/app', '2.1.0')).toBeUndefined();
    expect(seen).toEqual(['https://api.github.com/orgs/acme/packages/container/app/versions?per_page=100']);
  });
});
