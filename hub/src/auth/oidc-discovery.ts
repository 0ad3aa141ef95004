import * as v from 'valibot';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import type { OidcProviderConfig } from './oidc-config';
import { OidcError } from './oidc-error';
import { describeFetchFailure, fetchProviderJson } from './oidc-http';

// Every endpoint the hub calls or sends a browser to must be https, like the discovery URL (http-interface §9.7).
const HttpsUrlSchema = v.pipe(v.string(), v.url(), v.startsWith('https://', 'must be an https URL'));

/** The part of an OpenID Provider's metadata (OpenID Connect Discovery 1.0 §3) the hub uses. */
export const OidcDiscoverySchema = v.object({
  issuer: HttpsUrlSchema,
  authorization_endpoint: HttpsUrlSchema,
  token_endpoint: HttpsUrlSchema,
  jwks_uri: HttpsUrlSchema,
  userinfo_endpoint: v.optional(HttpsUrlSchema),
  token_endpoint_auth_methods_supported: v.optional(v.array(v.string())),
  id_token_signing_alg_values_supported: v.optional(v.array(v.string())),
  code_challenge_methods_supported: v.optional(v.array(v.string())),
});
export type OidcDiscovery = v.InferOutput<typeof OidcDiscoverySchema>;

/** A fetched document is used this long before it is fetched again (keys rotate through the JWKS, not here). */
export const DISCOVERY_TTL_MS = 60 * 60_000;
// After a failure, sign-ins get the same error this long instead of each hitting the provider again.
const RETRY_AFTER_FAILURE_MS = 10_000;
const WELL_KNOWN = '/.well-known/openid-configuration';

export interface DiscoveryCache {
  /** The provider's metadata, fetched on first use; throws an OidcError (502/503) when unavailable. */
  get(): Promise<OidcDiscovery>;
  /** The last fetch failure while no document is at hand, for /auth/status; undefined otherwise. */
  problem(): string | undefined;
}

/** Validates a fetched discovery document for this provider; throws an OidcError (502) naming what is wrong. */
export function parseDiscoveryDocument(config: OidcProviderConfig, json: unknown): OidcDiscovery {
  const parsed = v.safeParse(OidcDiscoverySchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = issue ? (v.getDotPath(issue) ?? 'document') : 'document';
    throw new OidcError(
      502,
      'discovery-invalid',
      `the discovery document is invalid (${where}: ${issue?.message ?? 'unreadable'})`,
    );
  }
  const doc = parsed.output;
  // Discovery §4.3: the issuer must be the URL the document was found under, or keys and tokens of
  // another issuer could be passed off as this one's.
  if (
    config.discovery.endsWith(WELL_KNOWN) &&
    doc.issuer.replace(/\/$/, '') !== config.discovery.slice(0, -WELL_KNOWN.length)
  ) {
    throw new OidcError(502, 'discovery-invalid', 'the discovery document names another issuer than its URL');
  }
  if (doc.code_challenge_methods_supported && !doc.code_challenge_methods_supported.includes('S256')) {
    throw new OidcError(502, 'discovery-invalid', 'the provider does not offer PKCE with S256');
  }
  return doc;
}

async function fetchDocument(config: OidcProviderConfig, fetch: FetchLike): Promise<OidcDiscovery> {
  let answer: Awaited<ReturnType<typeof fetchProviderJson>>;
  try {
    answer = await fetchProviderJson(fetch, config.discovery);
  } catch (error) {
    throw new OidcError(
      503,
      'discovery-unreachable',
      `the discovery document could not be fetched (${describeFetchFailure(error)})`,
    );
  }
  if (answer.status !== 200) {
    throw new OidcError(502, 'discovery-failed', `the discovery document answered HTTP ${answer.status}`, {
      status: String(answer.status),
    });
  }
  return parseDiscoveryDocument(config, answer.json);
}

/**
 * Fetches a provider's metadata lazily and keeps it: the hub starts without reaching the provider,
 * concurrent sign-ins share one request, and a stale document is kept when a refresh fails.
 */
export function createDiscoveryCache(config: OidcProviderConfig, fetch: FetchLike, now: () => number): DiscoveryCache {
  let doc: { value: OidcDiscovery; fetchedAt: number } | undefined;
  let failure: { error: OidcError; at: number } | undefined;
  let inFlight: Promise<OidcDiscovery> | undefined;

  const refresh = async (): Promise<OidcDiscovery> => {
    try {
      const value = await fetchDocument(config, fetch);
      doc = { value, fetchedAt: now() };
      failure = undefined;
      return value;
    } catch (error) {
      const oidcError =
        error instanceof OidcError ? error : new OidcError(503, 'discovery-unreachable', describeFetchFailure(error));
      failure = { error: oidcError, at: now() };
      if (doc) return doc.value;
      throw oidcError;
    } finally {
      inFlight = undefined;
    }
  };

  return {
    get() {
      const at = now();
      if (doc && at - doc.fetchedAt < DISCOVERY_TTL_MS) return Promise.resolve(doc.value);
      if (failure && at - failure.at < RETRY_AFTER_FAILURE_MS)
        return doc ? Promise.resolve(doc.value) : Promise.reject(failure.error);
      inFlight ??= refresh();
      return inFlight;
    },
    problem: () => (doc || !failure ? undefined : failure.error.message),
  };
}
