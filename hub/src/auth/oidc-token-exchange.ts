import * as v from 'valibot';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import type { OidcProviderConfig } from './oidc-config';
import type { OidcDiscovery } from './oidc-discovery';
import { OidcError } from './oidc-error';
import { describeFetchFailure, fetchProviderJson } from './oidc-http';

const TokenResponseSchema = v.object({
  id_token: v.pipe(v.string(), v.minLength(1), v.maxLength(64 * 1024)),
  access_token: v.optional(v.string()),
  token_type: v.optional(v.string()),
});
export type TokenResponse = v.InferOutput<typeof TokenResponseSchema>;

const OAuthErrorSchema = v.object({ error: v.pipe(v.string(), v.regex(/^[\x20-\x7e]{1,64}$/)) });

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

/**
 * How the hub authenticates at the token endpoint: client_secret_basic where offered (it is also
 * the default when the provider lists nothing, RFC 8414 §2), else client_secret_post.
 */
export function chooseClientAuthMethod(doc: OidcDiscovery): ClientAuthMethod {
  const offered = doc.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (offered.includes('client_secret_basic')) return 'client_secret_basic';
  if (offered.includes('client_secret_post')) return 'client_secret_post';
  throw new OidcError(
    502,
    'discovery-invalid',
    'the provider offers neither client_secret_basic nor client_secret_post',
  );
}

/** application/x-www-form-urlencoded, which RFC 6749 §2.3.1 asks of both parts before base64. */
const formEncode = (text: string): string => new URLSearchParams([['', text]]).toString().slice(1);

/** Redeems an authorization code with its PKCE verifier (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export async function exchangeCode(
  fetch: FetchLike,
  doc: OidcDiscovery,
  config: OidcProviderConfig,
  code: string,
  codeVerifier: string,
): Promise<TokenResponse> {
  const method = chooseClientAuthMethod(doc);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: config.redirect,
    code_verifier: codeVerifier,
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (method === 'client_secret_basic') {
    headers.authorization = `Basic ${btoa(`${formEncode(config.clientId)}:${formEncode(config.clientSecret)}`)}`;
  } else {
    form.set('client_id', config.clientId);
    form.set('client_secret', config.clientSecret);
  }
  let answer: Awaited<ReturnType<typeof fetchProviderJson>>;
  try {
    answer = await fetchProviderJson(fetch, doc.token_endpoint, { method: 'POST', headers, body: form.toString() });
  } catch (error) {
    throw new OidcError(
      401,
      'token-exchange',
      `the token endpoint could not be reached (${describeFetchFailure(error)})`,
    );
  }
  if (answer.status !== 200) {
    // The OAuth error code (invalid_grant, invalid_client…) helps an operator; its description is not repeated.
    const oauthError = v.safeParse(OAuthErrorSchema, answer.json);
    const details: Record<string, string> = {
      status: String(answer.status),
      ...(oauthError.success && { error: oauthError.output.error }),
    };
    throw new OidcError(401, 'token-exchange', `the token endpoint refused the code (HTTP ${answer.status})`, details);
  }
  const tokens = v.safeParse(TokenResponseSchema, answer.json);
  if (!tokens.success) throw new OidcError(401, 'token-exchange', 'the token endpoint answered without an id_token');
  return tokens.output;
}
