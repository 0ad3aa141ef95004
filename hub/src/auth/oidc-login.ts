import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import type { OidcProviderConfig } from './oidc-config';
import { createDiscoveryCache, type DiscoveryCache, type OidcDiscovery } from './oidc-discovery';
import { OidcError } from './oidc-error';
import { createKeySet, type KeySet, verifyIdToken } from './oidc-id-token';
import { resolveUsername } from './oidc-identity';
import { createPendingFlows } from './oidc-pending-flows';
import { randomUrlToken, s256Challenge } from './oidc-pkce';
import { exchangeCode } from './oidc-token-exchange';

/** What the provider sent back to the callback, as query parameters (RFC 6749 §4.1.2, RFC 9207). */
export interface CallbackParams {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  iss?: string | undefined;
}

export interface OidcLogin {
  /** Configured provider ids, in configuration order. */
  readonly ids: readonly string[];
  has(id: string): boolean;
  /** Problems worth showing in /auth/status (a discovery document that cannot be had). */
  problems(): string[];
  /** Starts a sign-in: the provider URL to send the browser to, and the state to bind to the browser. */
  begin(id: string): Promise<{ url: string; state: string }>;
  /** Finishes a sign-in; `boundState` is the state the browser carried in its cookie. Throws OidcError. */
  complete(id: string, params: CallbackParams, boundState: string | undefined): Promise<{ username: string }>;
}

interface Provider {
  config: OidcProviderConfig;
  discovery: DiscoveryCache;
  keys: Map<string, KeySet>;
}

const STATE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const ERROR_CODE = /^[\x20-\x7e]{1,64}$/;
const SCOPE = 'openid profile email';

const refused = (message: string, details: Record<string, string> = {}) =>
  new OidcError(401, 'invalid-state', message, details);

/** The authorization-code flow with PKCE (S256) for every DD_AUTH_OIDC_* provider, on any runtime. */
export function createOidcLogin(
  configs: readonly OidcProviderConfig[],
  fetch: FetchLike,
  now: () => number,
): OidcLogin {
  const providers = new Map<string, Provider>(
    configs.map((config) => [
      config.id,
      { config, discovery: createDiscoveryCache(config, fetch, now), keys: new Map() },
    ]),
  );
  const pending = createPendingFlows(now);

  const providerOf = (id: string): Provider => {
    const provider = providers.get(id);
    if (!provider) throw new OidcError(401, 'unknown-provider', `no OIDC provider "${id}" is configured`);
    return provider;
  };
  // One key set per JWKS URL, so jose's cache of fetched keys lives as long as the provider's document.
  const keySet = (provider: Provider, doc: OidcDiscovery): KeySet => {
    let keys = provider.keys.get(doc.jwks_uri);
    if (!keys) {
      keys = createKeySet(doc, fetch);
      provider.keys.set(doc.jwks_uri, keys);
    }
    return keys;
  };

  return {
    ids: [...providers.keys()],
    has: (id) => providers.has(id),
    problems: () =>
      [...providers.values()].flatMap(({ config, discovery }) => {
        const problem = discovery.problem();
        return problem === undefined ? [] : [`OIDC provider "${config.id}": ${problem}`];
      }),

    async begin(id) {
      const provider = providerOf(id);
      const doc = await provider.discovery.get();
      const state = randomUrlToken();
      const nonce = randomUrlToken();
      const codeVerifier = randomUrlToken();
      const url = new URL(doc.authorization_endpoint);
      const query = {
        response_type: 'code',
        client_id: provider.config.clientId,
        redirect_uri: provider.config.redirect,
        scope: SCOPE,
        state,
        nonce,
        code_challenge: await s256Challenge(codeVerifier),
        code_challenge_method: 'S256',
      };
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
      pending.add(state, { providerId: id, nonce, codeVerifier });
      return { url: url.href, state };
    },

    async complete(id, params, boundState) {
      const provider = providerOf(id);
      const state = params.state ?? '';
      // Taken before anything else is checked, so a state is spent by its first use whatever follows.
      const flow = STATE_PATTERN.test(state) ? pending.take(state) : undefined;
      if (!flow || flow.providerId !== id) throw refused('the state is unknown, expired or already used');
      if (boundState === undefined || !(await timingSafeEqualText(boundState, state))) {
        throw refused('the state does not belong to this browser');
      }
      if (params.error !== undefined) {
        const error = ERROR_CODE.test(params.error) ? params.error : 'invalid';
        throw new OidcError(401, 'provider-error', `the provider refused the sign-in (${error})`, { error });
      }
      const doc = await provider.discovery.get();
      // RFC 9207: an authorization response from another issuer is a mix-up attack.
      if (params.iss !== undefined && params.iss !== doc.issuer) throw refused('the response names another issuer');
      if (!params.code) throw new OidcError(401, 'token-exchange', 'the provider sent no authorization code');
      const tokens = await exchangeCode(fetch, doc, provider.config, params.code, flow.codeVerifier);
      const claims = await verifyIdToken(
        tokens.id_token,
        keySet(provider, doc),
        doc,
        provider.config,
        flow.nonce,
        timingSafeEqualText,
      );
      return { username: await resolveUsername(fetch, doc, claims, tokens.access_token) };
    },
  };
}
