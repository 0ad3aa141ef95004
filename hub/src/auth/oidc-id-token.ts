import { createRemoteJWKSet, customFetch, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import type { OidcProviderConfig } from './oidc-config';
import type { OidcDiscovery } from './oidc-discovery';
import { OidcError } from './oidc-error';
import { OIDC_REQUEST_TIMEOUT_MS } from './oidc-http';

/** Signature algorithms verifiable against a public JWKS; HMAC (keyed by the client secret) and `none` are refused. */
const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
// A provider's clock may run a little ahead of or behind the hub's.
const CLOCK_TOLERANCE_SECONDS = 60;

/** Resolves the key a token names; the provider's remote JWKS in the hub. */
export type KeySet = JWTVerifyGetKey;

/** The provider's signing keys, fetched when first needed and again when an unknown key id shows up. */
export function createKeySet(doc: OidcDiscovery, fetch: FetchLike): KeySet {
  return createRemoteJWKSet(new URL(doc.jwks_uri), { [customFetch]: fetch, timeoutDuration: OIDC_REQUEST_TIMEOUT_MS });
}

function allowedAlgorithms(doc: OidcDiscovery): string[] {
  // OpenID Connect Core §3.1.3.7: RS256 unless the provider says otherwise.
  const offered = doc.id_token_signing_alg_values_supported ?? ['RS256'];
  const allowed = offered.filter((alg) => ASYMMETRIC_ALGORITHMS.includes(alg));
  if (allowed.length === 0)
    throw new OidcError(
      502,
      'discovery-invalid',
      'the provider signs ID tokens with no supported public-key algorithm',
    );
  return allowed;
}

function describeJoseError(error: unknown): string {
  const { code, claim } = error as { code?: unknown; claim?: unknown };
  if (typeof code !== 'string') return 'unreadable';
  return typeof claim === 'string' ? `${code} (${claim})` : code;
}

/**
 * Checks an ID token as OpenID Connect Core §3.1.3.7 asks: signature against the provider's JWKS,
 * iss, aud (and azp when there are several audiences), exp, and the nonce of this sign-in.
 */
export async function verifyIdToken(
  idToken: string,
  keys: KeySet,
  doc: OidcDiscovery,
  config: OidcProviderConfig,
  nonce: string,
  equal: (a: string, b: string) => Promise<boolean>,
): Promise<JWTPayload & { sub: string }> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keys, {
      issuer: doc.issuer,
      audience: config.clientId,
      algorithms: allowedAlgorithms(doc),
      requiredClaims: ['sub', 'exp', 'iat'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    if (error instanceof OidcError) throw error;
    throw new OidcError(401, 'invalid-id-token', `the ID token was refused: ${describeJoseError(error)}`);
  }
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== config.clientId) {
    throw new OidcError(401, 'invalid-id-token', 'the ID token was issued to another party (azp)');
  }
  if (typeof payload.nonce !== 'string' || !(await equal(payload.nonce, nonce))) {
    throw new OidcError(401, 'invalid-id-token', 'the ID token does not carry the nonce of this sign-in');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '')
    throw new OidcError(401, 'invalid-id-token', 'the ID token has no subject');
  return payload as JWTPayload & { sub: string };
}
