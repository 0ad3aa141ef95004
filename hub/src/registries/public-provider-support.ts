import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import type { BasicCredentials } from '../../../shared/registry/registry-auth';
import {
  createConcurrencyLimiter,
  createTokenBucketLimiter,
  type RequestLimiter,
} from '../../../shared/registry/request-limiter';
import type { ProviderVariables } from '../config/provider-variables';
import { defaultRateLimit } from './politeness';
import type { ProviderConnection, PublishedAt } from './registry-provider';
import { CommonRegistryOptions, maskSecret, parseConcurrency, parseRateLimit } from './registry-provider';

const MAX_CACHED_DATES = 10_000;

/**
 * The options of a public registry's provider: `_LOGIN` with `_PASSWORD` or `_TOKEN` (an access
 * token used as the password), plus the common ones. Shared by hub, ghcr, lscr and quay.
 */
export const PublicRegistryOptions = {
  ...CommonRegistryOptions,
  login: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  password: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  token: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
};

export interface PublicProviderOptions {
  login?: string | undefined;
  password?: string | undefined;
  token?: string | undefined;
  ratelimit?: string | undefined;
  concurrency?: string | undefined;
  insecure?: string | undefined;
  cafile?: string | undefined;
}

/**
 * What the providers of public registries (hub, ghcr, lscr, quay) share: `_LOGIN` with
 * `_PASSWORD` or `_TOKEN`, the default budget of their host (decisions §7) and https only.
 */
export function publicProviderSettings(variables: ProviderVariables, options: PublicProviderOptions, registry: string) {
  const variable = (key: string) =>
    variables.values.get(key)?.variable ?? `DD_REGISTRY_${variables.type}_${variables.name}_${key}`.toUpperCase();
  if (options.insecure === 'true')
    throw new ConfigError(variable('insecure'), `${registry} is reached over https only`);
  if (options.password !== undefined && options.token !== undefined)
    throw new ConfigError(variable('token'), 'give PASSWORD or TOKEN, not both');
  const password = options.password ?? options.token;
  if (options.login === undefined && password !== undefined) {
    throw new ConfigError(variable(options.password === undefined ? 'token' : 'password'), 'needs LOGIN as well');
  }
  if (options.login !== undefined && password === undefined)
    throw new ConfigError(variable('login'), 'LOGIN needs PASSWORD or TOKEN');
  const credentials: BasicCredentials | undefined =
    options.login !== undefined && password !== undefined ? { username: options.login, password } : undefined;
  const rateLimit = parseRateLimit(options.ratelimit, defaultRateLimit(registry));
  const concurrency = parseConcurrency(options.concurrency);
  // A provider's web API (hub.docker.com, api.github.com) is another host: a limiter of its own, same budget.
  const apiLimiter = (now: () => number): RequestLimiter =>
    rateLimit ? createTokenBucketLimiter({ ...rateLimit, concurrency, now }) : createConcurrencyLimiter(concurrency);
  const masked = {
    login: options.login,
    password: maskSecret(options.password),
    token: maskSecret(options.token),
    ratelimit: options.ratelimit,
  };
  // Over https only, so `insecure` is always false; a provider adds the token hosts it vouches for.
  const connection: ProviderConnection = {
    ...(credentials && { credentials }),
    insecure: false,
    caFile: options.cafile,
    rateLimit,
    concurrency,
  };
  return { credentials, connection, apiLimiter, masked };
}

export interface CachedDate {
  value: PublishedAt | undefined;
  /** The manifest digest the date belongs to, when the API reported one. */
  digest: string | undefined;
  at: number;
}

/**
 * Publication dates by `repository:tag`, shared by the providers with a push-date API (Hub, GHCR).
 * An entry is fresh while the caller's digest matches the one stored with it, or, with no digest to
 * compare, for `ttlMs`. Concurrent lookups of one key share a request. `load` resolving undefined
 * (an error, a rate limit) caches nothing; a rejection is swallowed: a missing date is never fatal.
 */
export function createPublishedAtCache(now: () => number, ttlMs: number) {
  const entries = new Map<string, CachedDate>();
  const pending = new Map<string, Promise<PublishedAt | undefined>>();
  const remember = (key: string, entry: CachedDate): void => {
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > MAX_CACHED_DATES) entries.delete(entries.keys().next().value as string);
  };
  return {
    remember,
    fresh(key: string, digest: string | undefined): CachedDate | undefined {
      const hit = entries.get(key);
      if (!hit) return undefined;
      const fresh = digest !== undefined && hit.digest !== undefined ? hit.digest === digest : now() - hit.at < ttlMs;
      return fresh ? hit : undefined;
    },
    load(key: string, load: () => Promise<CachedDate | undefined>): Promise<PublishedAt | undefined> {
      let inFlight = pending.get(key);
      if (!inFlight) {
        inFlight = load()
          .then((entry) => {
            if (entry) remember(key, entry);
            return entry?.value;
          })
          .catch(() => undefined)
          .finally(() => pending.delete(key));
        pending.set(key, inFlight);
      }
      return inFlight;
    },
  };
}
