import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import type { BasicCredentials } from '../../../shared/registry/registry-auth';
import type { RegistryFetch } from '../../../shared/registry/registry-transport';
import type { ProviderVariables } from '../config/provider-variables';
import { PRIVATE_CONCURRENCY, type RegistryRateLimit } from './politeness';

/** A publication date and whether it came from a push-date source worth trusting (http-interface §2.4). */
export interface PublishedAt {
  date: string;
  trusted: boolean;
}

/** How to reach one registry host through a provider. */
export interface ProviderConnection {
  credentials?: BasicCredentials | undefined;
  insecure?: boolean;
  /** Set when the configuration says (a provider URL); otherwise https, or http for loopback and insecure hosts. */
  scheme?: 'http' | 'https' | undefined;
  /** PEM file of a private CA (Node only); implies https. */
  caFile?: string | undefined;
  trustedRealmHosts?: readonly string[];
  /** When the credentials stop working (ECR tokens): the client is rebuilt after it. */
  expiresAt?: number;
  /** Requests per second and burst; undefined → only the in-flight cap applies. */
  rateLimit?: RegistryRateLimit | undefined;
  concurrency: number;
}

export interface RegistryProviderContext {
  now: () => number;
  /** Runtime fetch for provider APIs beside the registry (token exchanges, tag metadata). */
  fetch: RegistryFetch;
}

/** One configured (or built-in) registry provider, by the `DD_REGISTRY_<TYPE>_<NAME>_*` convention. */
export interface RegistryProvider {
  readonly type: string;
  readonly name: string;
  /** Whether this provider serves images of that registry host (as written in references). */
  matches(registry: string): boolean;
  connection(registry: string): Promise<ProviderConnection>;
  /**
   * A trusted push date for a tag, where the registry kind has one (Docker Hub, GHCR). `digest` is
   * what the tag points to now, so a provider can tell a cached date of an older push from a fresh one.
   */
  publishedAt?(repository: string, tag: string, digest?: string): Promise<PublishedAt | undefined>;
  /** Configuration safe to show through the API. */
  maskedConfiguration(): Record<string, unknown>;
}

export type RegistryProviderFactory = (
  variables: ProviderVariables,
  context: RegistryProviderContext,
) => RegistryProvider;

/** `_RATELIMIT` is `<n>/s` or `<n>/s:<burst>`; `off` disables the bucket. */
const RateLimitSchema = v.pipe(
  v.string(),
  v.regex(/^(off|\d+(\.\d+)?\/s(:\d+)?)$/i, 'must be <requests>/s, <requests>/s:<burst> or off'),
);

/** Options every provider accepts besides its own. */
export const CommonRegistryOptions = {
  ratelimit: v.optional(RateLimitSchema),
  concurrency: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'must be an integer from 1 to 256'))),
  cafile: v.optional(v.pipe(v.string(), v.minLength(1))),
  insecure: v.optional(v.picklist(['true', 'false'], 'must be true or false')),
};

/**
 * Validates a provider's variables against its options schema; an error names the variable.
 * Keys a provider does not know are refused, listing the ones it does.
 */
export function parseProviderOptions<T extends Record<string, v.GenericSchema<string | undefined, unknown>>>(
  variables: ProviderVariables,
  entries: T,
): { [K in keyof T]: v.InferOutput<T[K]> } {
  const raw: Record<string, string> = {};
  for (const [key, { variable, value }] of variables.values) {
    if (!(key in entries)) {
      throw new ConfigError(
        variable,
        `unknown option for a ${variables.type} registry; known: ${Object.keys(entries).join(', ')}`,
      );
    }
    raw[key] = value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(entries)) {
    const result = v.safeParse(schema, raw[key]);
    if (!result.success) {
      const variable =
        variables.values.get(key)?.variable ?? `DD_REGISTRY_${variables.type}_${variables.name}_${key}`.toUpperCase();
      throw new ConfigError(variable, result.issues[0]?.message ?? 'invalid value');
    }
    out[key] = result.output;
  }
  return out as { [K in keyof T]: v.InferOutput<T[K]> };
}

/** `_CONCURRENCY` (already checked as 1 to 3 digits), clamped to 1..256; the private-registry cap when unset. */
export function parseConcurrency(value: string | undefined): number {
  return value === undefined ? PRIVATE_CONCURRENCY : Math.min(256, Math.max(1, Number(value)));
}

/** A secret as masked configuration shows it: whether it is set, never what it is. */
export function maskSecret(value: string | undefined): '***' | undefined {
  return value === undefined ? undefined : '***';
}

export function parseRateLimit(
  value: string | undefined,
  fallback: ProviderConnection['rateLimit'],
): ProviderConnection['rateLimit'] {
  if (value === undefined) return fallback;
  if (value.toLowerCase() === 'off') return undefined;
  const [rate, burst] = value.toLowerCase().replace('/s', '').split(':');
  const ratePerSecond = Number(rate);
  return { ratePerSecond, burst: burst === undefined ? Math.max(1, Math.ceil(ratePerSecond * 5)) : Number(burst) };
}

/** The common options' values (CommonRegistryOptions), as parseProviderOptions gives them. */
export interface CommonOptionValues {
  ratelimit?: string | undefined;
  concurrency?: string | undefined;
  cafile?: string | undefined;
  insecure?: string | undefined;
}

/**
 * The connection as the common options make it: `_INSECURE`, `_CAFILE`, `_CONCURRENCY` and
 * `_RATELIMIT`, else `defaultLimit` (the registry host's polite default, or none).
 */
export function commonConnection(options: CommonOptionValues, defaultLimit: ProviderConnection['rateLimit']) {
  return {
    insecure: options.insecure === 'true',
    caFile: options.cafile,
    rateLimit: parseRateLimit(options.ratelimit, defaultLimit),
    concurrency: parseConcurrency(options.concurrency),
  } satisfies ProviderConnection;
}
