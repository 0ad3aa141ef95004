import { createLocalJWKSet, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';
import type { OidcProviderConfig } from './oidc-config';
import { type OidcDiscovery, parseDiscoveryDocument } from './oidc-discovery';
import { OidcError } from './oidc-error';
import { type KeySet, verifyIdToken } from './oidc-id-token';
import { usernameFromClaims } from './oidc-identity';

const ISSUER = 'https://id.example.test';
const CONFIG: OidcProviderConfig = {
  id: 'corp',
  discovery: `${ISSUER}/.well-known/openid-configuration`,
  clientId: 'dockwatch',
  clientSecret: 'secret',
  redirect: 'https://hub.example.test/api/v1/auth/oidc/corp/callback',
};
const DOC: OidcDiscovery = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/auth`,
  token_endpoint: `${ISSUER}/token`,
  jwks_uri: `${ISSUER}/jwks`,
  id_token_signing_alg_values_supported: ['RS256', 'HS256'],
};
const NONCE = 'nonce-of-this-sign-in';

let keys: KeySet;
let signingKey: CryptoKey;
let otherKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' }] });
});

function sign(claims: JWTPayload, key: CryptoKey | Uint8Array = signingKey, alg = 'RS256'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: ISSUER, aud: 'dockwatch', sub: 'user-1', iat: now, exp: now + 300, nonce: NONCE, ...claims };
  return new SignJWT(payload).setProtectedHeader({ alg, kid: 'k1' }).sign(key);
}

async function reasonOf(token: string): Promise<string> {
  try {
    await verifyIdToken(token, keys, DOC, CONFIG, NONCE, timingSafeEqualText);
  } catch (error) {
    if (error instanceof OidcError) return `${error.status} ${error.message}`;
    throw error;
  }
  return 'accepted';
}

describe('verifyIdToken', () => {
  it('accepts a token signed by the provider for this client and sign-in', async () => {
    const claims = await verifyIdToken(
      await sign({ email: 'a@example.test' }),
      keys,
      DOC,
      CONFIG,
      NONCE,
      timingSafeEqualText,
    );
    expect(claims).toMatchObject({ sub: 'user-1', email: 'a@example.test' });
  });

  it.each<[string, () => Promise<string>, string]>([
    ['another nonce', () => sign({ nonce: 'replayed' }), 'nonce'],
    ['no nonce', () => sign({ nonce: undefined }), 'nonce'],
    ['another audience', () => sign({ aud: 'someone-else' }), 'aud'],
    ['several audiences without azp', () => sign({ aud: ['dockwatch', 'other'] }), 'azp'],
    ['another issuer', () => sign({ iss: 'https://evil.example.test' }), 'iss'],
    ['an expired token', () => sign({ exp: Math.floor(Date.now() / 1000) - 3600 }), 'exp'],
    ['another key', () => sign({}, otherKey), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'],
    [
      'HMAC keyed by the client secret',
      () => sign({}, new TextEncoder().encode('secret'), 'HS256'),
      'ERR_JOSE_ALG_NOT_ALLOWED',
    ],
  ])('refuses %s with 401', async (_name, make, expected) => {
    const reason = await reasonOf(await make());
    expect(reason.startsWith('401 ')).toBe(true);
    expect(reason).toContain(expected);
  });

  it('refuses an unsigned token (alg none)', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const token = `${encode({ alg: 'none' })}.${encode({ iss: ISSUER, aud: 'dockwatch', sub: 'u', nonce: NONCE, iat: now, exp: now + 60 })}.`;
    expect(await reasonOf(token)).toMatch(/^401 /);
  });
});

describe('parseDiscoveryDocument', () => {
  it('accepts a document of this issuer', () => {
    expect(parseDiscoveryDocument(CONFIG, { ...DOC, extra: true }).issuer).toBe(ISSUER);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['another issuer', { issuer: 'https://other.example.test' }, 'another issuer'],
    ['an http token endpoint', { token_endpoint: 'http://id.example.test/token' }, 'token_endpoint'],
    ['no jwks_uri', { jwks_uri: undefined }, 'jwks_uri'],
    ['PKCE without S256', { code_challenge_methods_supported: ['plain'] }, 'S256'],
  ])('refuses %s with 502', (_name, change, expected) => {
    const run = () => parseDiscoveryDocument(CONFIG, { ...DOC, ...change });
    expect(run).toThrow(OidcError);
    expect(run).toThrow(expected);
  });
});

describe('usernameFromClaims', () => {
  it('takes preferred_username, else email, else sub, skipping unusable values', () => {
    expect(usernameFromClaims({ sub: 's', email: 'e@x', preferred_username: 'p' })).toBe('p');
    expect(usernameFromClaims({ sub: 's', email: 'e@x', preferred_username: '  ' })).toBe('e@x');
    expect(usernameFromClaims({ sub: 's', email: 'line\nbreak' })).toBe('s');
    expect(usernameFromClaims({ sub: 's', preferred_username: 'x'.repeat(201) })).toBe('s');
  });
});
