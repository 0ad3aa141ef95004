import * as v from 'valibot';
import { discard, parseRetryAfter, type RegistryResponse } from '../../../shared/registry/registry-transport';
import type { ProviderVariables } from '../config/provider-variables';
import type { CachedDate } from './public-provider-support';
import { createPublishedAtCache, PublicRegistryOptions, publicProviderSettings } from './public-provider-support';
import type { ProviderConnection, PublishedAt, RegistryProvider, RegistryProviderContext } from './registry-provider';
import { parseProviderOptions } from './registry-provider';

/** Docker Hub: `_TOKEN` is a personal access token. */
export const HubOptionsSchema = PublicRegistryOptions;

/** Where the provider reaches Docker Hub's web API; tests point it at a fixture server. */
export interface HubEndpoints {
  hubApi?: string;
  /** Deadline of one tags-API request, body included. */
  timeoutMs?: number;
  /** How long a date fetched without a digest to check it against is reused (see publishedAt). */
  cacheTtlMs?: number;
}

export interface HubProvider extends RegistryProvider {
  /**
   * `tag_last_pushed` from Docker Hub's tags API, trusted (http-interface §2.4). A tag's push date changes
   * when the tag is re-pushed, so an answer is reused only while it can still be right: forever
   * while the caller's `digest` matches the digest Docker Hub reported with it, otherwise (no
   * digest given) for `cacheTtlMs`, ten minutes by default: long enough that every container of a
   * watch cycle shares one request, short enough that the next hourly cycle asks again.
   * Never throws: any failure is `undefined` and the caller falls back to an untrusted date.
   */
  publishedAt(repository: string, tag: string, digest?: string): Promise<PublishedAt | undefined>;
}

const DOCKER_HUB_API = 'https://hub.docker.com';
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_CACHE_TTL_MS = 10 * 60_000;
/** An upstream asking for a longer pause is still asked again after a cycle. */
const MAX_PAUSE_MS = 3_600_000;
/** Hub access tokens live ten minutes; renew a minute early. */
const ACCESS_TOKEN_REUSE_MS = 9 * 60_000;
/** A refused login, or a 429 that names no time, pauses the API this long. */
const DEFAULT_BACKOFF_MS = 60_000;

const TagSchema = v.object({ tag_last_pushed: v.nullish(v.string()), digest: v.nullish(v.string()) });
const AccessTokenSchema = v.object({ access_token: v.pipe(v.string(), v.minLength(1)) });

/** `DD_REGISTRY_HUB_<NAME>_LOGIN` + `_PASSWORD` or `_TOKEN`: Docker Hub, anonymous without them. */
export function createHubProvider(
  variables: ProviderVariables,
  context: RegistryProviderContext,
  endpoints: HubEndpoints = {},
): HubProvider {
  const options = parseProviderOptions(variables, HubOptionsSchema);
  const { credentials, connection, apiLimiter, masked } = publicProviderSettings(variables, options, 'docker.io');
  const api = (endpoints.hubApi ?? DOCKER_HUB_API).replace(/\/+$/, '');
  const timeoutMs = endpoints.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const limiter = apiLimiter(context.now);
  const dates = createPublishedAtCache(context.now, endpoints.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS);
  let pausedUntil = 0;
  let accessToken: { value: string; until: number } | undefined;

  const request = (url: string, init: RequestInit): Promise<RegistryResponse> =>
    limiter.run(() => context.fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) }));

  /**
   * Rate limited or refused: stop asking until Docker Hub says we may, so a cycle does not keep
   * hammering it. Its documented 429 header is `X-Retry-After`, a Unix time; `Retry-After` is
   * honoured too, and `X-RateLimit-Reset` (Unix time) is the last resort.
   */
  const pause = async (response: RegistryResponse): Promise<void> => {
    const now = context.now();
    const unixHeader = (name: string) => {
      const seconds = Number(response.headers.get(name));
      return Number.isFinite(seconds) && seconds > 0 ? Math.max(0, seconds * 1000 - now) : undefined;
    };
    const wait =
      parseRetryAfter(response.headers.get('retry-after'), now) ??
      unixHeader('x-retry-after') ??
      unixHeader('x-ratelimit-reset');
    pausedUntil =
      now + (response.status === 429 ? Math.min(wait ?? DEFAULT_BACKOFF_MS, MAX_PAUSE_MS) : DEFAULT_BACKOFF_MS);
    await discard(response);
  };

  /** Private repositories need a bearer from the account; public ones are readable anonymously. */
  const authorization = async (): Promise<string | undefined> => {
    if (!credentials) return undefined;
    if (accessToken && accessToken.until > context.now()) return `Bearer ${accessToken.value}`;
    const response = await request(`${api}/v2/auth/token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: credentials.username, secret: credentials.password }),
    });
    if (!response.ok) {
      // Refused credentials are the registry client's to report; dates wait a while, never go anonymous.
      await pause(response);
      throw new Error(`access token: ${response.status}`);
    }
    const body = v.parse(AccessTokenSchema, await response.json());
    accessToken = { value: body.access_token, until: context.now() + ACCESS_TOKEN_REUSE_MS };
    return `Bearer ${body.access_token}`;
  };

  /** One tags-API lookup; undefined when the answer is not worth caching (errors, rate limits). */
  const lookup = async (namespace: string, name: string, tag: string): Promise<CachedDate | undefined> => {
    const auth = await authorization();
    const url = `${api}/v2/namespaces/${encodeURIComponent(namespace)}/repositories/${encodeURIComponent(name)}/tags/${encodeURIComponent(tag)}`;
    const response = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...(auth && { authorization: auth }) },
    });
    if (response.status === 404) {
      await discard(response);
      return { value: undefined, digest: undefined, at: context.now() };
    }
    if (!response.ok) {
      await (response.status === 429 ? pause(response) : discard(response));
      return undefined;
    }
    const body = v.parse(TagSchema, await response.json());
    const pushed = body.tag_last_pushed;
    const value = pushed && Number.isFinite(Date.parse(pushed)) ? { date: pushed, trusted: true } : undefined;
    return { value, digest: body.digest ?? undefined, at: context.now() };
  };

  return {
    type: 'hub',
    name: variables.name,
    matches: (registry) => registry === 'docker.io',
    async connection(): Promise<ProviderConnection> {
      return { ...connection, trustedRealmHosts: ['auth.docker.io'] };
    },
    async publishedAt(repository, tag, digest) {
      const parts = repository.split('/');
      // Docker Hub repositories are `namespace/name`; a bare name is an official image.
      if (parts.length > 2) return undefined;
      const [namespace, name] = parts.length === 2 ? (parts as [string, string]) : ['library', parts[0] as string];
      const key = `${namespace}/${name}:${tag}`;
      const hit = dates.fresh(key, digest);
      if (hit) return hit.value;
      if (context.now() < pausedUntil) return undefined;
      return dates.load(key, () => lookup(namespace, name, tag));
    },
    maskedConfiguration: () => masked,
  };
}
