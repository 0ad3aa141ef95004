import * as v from 'valibot';
import {
  discard,
  parseRetryAfter,
  type RegistryFetch,
  type RegistryResponse,
} from '../../../shared/registry/registry-transport';
import type { RequestLimiter } from '../../../shared/registry/request-limiter';
import type { ProviderVariables } from '../config/provider-variables';
import type { CachedDate } from './public-provider-support';
import { createPublishedAtCache, PublicRegistryOptions, publicProviderSettings } from './public-provider-support';
import type { ProviderConnection, PublishedAt, RegistryProvider, RegistryProviderContext } from './registry-provider';
import { parseProviderOptions } from './registry-provider';

/** `_LOGIN` is the GitHub user; `_TOKEN` (or `_PASSWORD`) a personal access token with read:packages. */
export const GhcrOptionsSchema = PublicRegistryOptions;

/** Where the provider reaches GitHub's REST API; tests point it at a fixture server. */
export interface GithubEndpoints {
  githubApi?: string;
  /** Deadline of one API request, body included. */
  timeoutMs?: number;
  /** How long a date fetched without a digest to check it against is reused (createPublishedAtCache). */
  cacheTtlMs?: number;
  /** Pages of 100 versions read at most per lookup. */
  maxPages?: number;
}

export interface GithubPackageDatesOptions extends GithubEndpoints {
  /** A personal access token with read:packages: the packages API has no anonymous access. */
  token: string;
  fetch: RegistryFetch;
  now: () => number;
  limiter: RequestLimiter;
}

/** Trusted dates for ghcr.io-hosted images, shared with lscr.io (its front). */
export type GithubPackageDates = (repository: string, tag: string, digest?: string) => Promise<PublishedAt | undefined>;

const GITHUB_API = 'https://api.github.com';
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_CACHE_TTL_MS = 10 * 60_000;
const DEFAULT_MAX_PAGES = 10;
/** A refusal or rate limit without a reset time still pauses the API this long. */
const DEFAULT_BACKOFF_MS = 60_000;
/** An upstream asking for a longer pause is still asked again after a cycle. */
const MAX_PAUSE_MS = 3_600_000;
const OWNER_KINDS = ['orgs', 'users'] as const;

const VersionsSchema = v.array(
  v.object({
    /** The manifest digest of the version. */
    name: v.string(),
    created_at: v.string(),
    metadata: v.optional(v.object({ container: v.optional(v.object({ tags: v.array(v.string()) })) })),
  }),
);

/** The `rel="next"` target of a Link header, used as an opaque cursor (GitHub's point to /organizations/<id>/…). */
function nextLink(header: string | null): string | undefined {
  for (const part of header?.split(',') ?? []) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match && /\brel="?next"?/.test(match[2] as string)) return match[1];
  }
  return undefined;
}

/**
 * The `created_at` of the package version carrying a tag, from GitHub's packages API
 * (`/{orgs|users}/{owner}/packages/container/{package}/versions`), trusted (http-interface §2.4). The owner
 * kind is unknown up front: orgs is tried first, then users on 404, and the answer remembered.
 * Every tag seen on a page is cached, so the other candidates of one repository cost nothing.
 * Never throws; any failure is undefined.
 */
export function createGithubPackageDates(options: GithubPackageDatesOptions): GithubPackageDates {
  const api = (options.githubApi ?? GITHUB_API).replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const dates = createPublishedAtCache(options.now, options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS);
  const ownerKinds = new Map<string, (typeof OWNER_KINDS)[number]>();
  let pausedUntil = 0;

  const request = (url: string): Promise<RegistryResponse> =>
    options.limiter.run(() =>
      options.fetch(url, {
        method: 'GET',
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${options.token}`,
          'x-github-api-version': '2022-11-28',
          // GitHub refuses requests without one; not every runtime's fetch sends it.
          'user-agent': 'dockwatch',
        },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      }),
    );

  /**
   * Rate limits (429, or 403 with no requests remaining) pause every lookup until GitHub's reset;
   * a refused token (401, or 403 for a token without read:packages) for a minute: neither clears
   * by asking again for the next tag.
   */
  const refuse = async (response: RegistryResponse): Promise<undefined> => {
    const now = options.now();
    const limited =
      response.status === 429 ||
      response.headers.get('x-ratelimit-remaining') === '0' ||
      response.headers.get('retry-after') !== null;
    if (limited) {
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      const resetMs = Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - now) : undefined;
      const wait = parseRetryAfter(response.headers.get('retry-after'), now) ?? resetMs ?? DEFAULT_BACKOFF_MS;
      pausedUntil = now + Math.min(wait, MAX_PAUSE_MS);
    } else if (response.status === 401 || response.status === 403) {
      pausedUntil = now + DEFAULT_BACKOFF_MS;
    }
    await discard(response);
    return undefined;
  };

  const walk = async (repository: string, first: RegistryResponse, tag: string): Promise<CachedDate | undefined> => {
    let response = first;
    for (let page = 1; ; page++) {
      if (!response.ok) return refuse(response);
      const versions = v.parse(VersionsSchema, await response.json());
      let found: CachedDate | undefined;
      for (const version of versions) {
        const valid = Number.isFinite(Date.parse(version.created_at));
        const entry = {
          value: valid ? { date: version.created_at, trusted: true } : undefined,
          digest: version.name,
          at: options.now(),
        };
        for (const seen of version.metadata?.container?.tags ?? []) {
          dates.remember(`${repository}:${seen}`, entry);
          if (seen === tag) found = entry;
        }
      }
      if (found) return found;
      const next = nextLink(response.headers.get('link'));
      // The token goes to the API's own origin only, whatever a Link header says.
      if (next === undefined || page >= maxPages || new URL(next, api).origin !== new URL(api).origin) {
        return { value: undefined, digest: undefined, at: options.now() };
      }
      response = await request(new URL(next, api).toString());
    }
  };

  const lookup = async (repository: string, tag: string): Promise<CachedDate | undefined> => {
    const slash = repository.indexOf('/');
    const owner = repository.slice(0, slash);
    const packageName = repository.slice(slash + 1);
    const known = ownerKinds.get(owner);
    for (const kind of known ? [known] : OWNER_KINDS) {
      const response = await request(
        `${api}/${kind}/${encodeURIComponent(owner)}/packages/container/${encodeURIComponent(packageName)}/versions?per_page=100`,
      );
      if (response.status === 404) {
        await discard(response);
        continue;
      }
      if (response.ok) ownerKinds.set(owner, kind);
      return walk(repository, response, tag);
    }
    return { value: undefined, digest: undefined, at: options.now() };
  };

  return async (repository, tag, digest) => {
    if (repository.indexOf('/') <= 0) return undefined;
    const key = `${repository}:${tag}`;
    const hit = dates.fresh(key, digest);
    if (hit) return hit.value;
    if (options.now() < pausedUntil) return undefined;
    return dates.load(key, () => lookup(repository, tag));
  };
}

export interface GhcrProvider extends RegistryProvider {
  /** Only with a token: the packages API answers 401 to anonymous callers, even for public packages. */
  publishedAt?(repository: string, tag: string, digest?: string): Promise<PublishedAt | undefined>;
}

/** What differs between the registries GitHub's packages API serves: ghcr.io itself and its lscr.io front. */
export interface GithubBackedRegistry {
  type: string;
  registry: string;
  /** Token hosts besides the registry's own domain (lscr.io's challenge names ghcr.io). */
  trustedRealmHosts?: readonly string[];
  /** Whether a repository of this registry is a GHCR package whose dates the API knows. */
  hasGithubPackage?: (repository: string) => boolean;
}

/** A provider for a registry backed by GitHub's packages: GitHub credentials, trusted dates with a token. */
export function createGithubBackedProvider(
  spec: GithubBackedRegistry,
  variables: ProviderVariables,
  context: RegistryProviderContext,
  endpoints: GithubEndpoints,
): GhcrProvider {
  const options = parseProviderOptions(variables, GhcrOptionsSchema);
  const { credentials, connection, apiLimiter, masked } = publicProviderSettings(variables, options, spec.registry);
  const githubDates =
    credentials &&
    createGithubPackageDates({
      ...endpoints,
      token: credentials.password,
      fetch: context.fetch,
      now: context.now,
      limiter: apiLimiter(context.now),
    });
  const hasPackage = spec.hasGithubPackage ?? (() => true);
  return {
    type: spec.type,
    name: variables.name,
    matches: (registry) => registry === spec.registry,
    async connection(): Promise<ProviderConnection> {
      return { ...connection, ...(spec.trustedRealmHosts && { trustedRealmHosts: spec.trustedRealmHosts }) };
    },
    ...(githubDates && {
      publishedAt: async (repository: string, tag: string, digest?: string) =>
        hasPackage(repository) ? githubDates(repository, tag, digest) : undefined,
    }),
    maskedConfiguration: () => masked,
  };
}

/** `DD_REGISTRY_GHCR_<NAME>_LOGIN` + `_TOKEN` (or `_PASSWORD`): ghcr.io, anonymous without them. */
export function createGhcrProvider(
  variables: ProviderVariables,
  context: RegistryProviderContext,
  endpoints: GithubEndpoints = {},
): GhcrProvider {
  return createGithubBackedProvider({ type: 'ghcr', registry: 'ghcr.io' }, variables, context, endpoints);
}
