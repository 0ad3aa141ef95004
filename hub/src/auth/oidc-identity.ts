import type { FetchLike } from '../../../shared/registry/registry-transport';
import type { OidcDiscovery } from './oidc-discovery';
import { OidcError } from './oidc-error';
import { describeFetchFailure, fetchProviderJson } from './oidc-http';

const MAX_USERNAME = 200;
// Control characters would let a provider forge lines in logs and audit details.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

type Claims = Record<string, unknown>;

function usable(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return text.length > 0 && text.length <= MAX_USERNAME && !CONTROL.test(text) ? text : undefined;
}

/** The hub's username for a signed-in subject: preferred_username, else email, else sub. */
export function usernameFromClaims(claims: Claims): string | undefined {
  return usable(claims.preferred_username) ?? usable(claims.email) ?? usable(claims.sub);
}

async function fetchUserInfo(
  fetch: FetchLike,
  endpoint: string,
  accessToken: string,
  subject: string,
): Promise<Claims> {
  let answer: Awaited<ReturnType<typeof fetchProviderJson>>;
  try {
    answer = await fetchProviderJson(fetch, endpoint, { headers: { authorization: `Bearer ${accessToken}` } });
  } catch (error) {
    throw new OidcError(401, 'userinfo', `the userinfo endpoint could not be reached (${describeFetchFailure(error)})`);
  }
  const claims = answer.json;
  if (answer.status !== 200 || typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new OidcError(401, 'userinfo', `the userinfo endpoint answered HTTP ${answer.status} without claims`);
  }
  // Core §5.3.2: claims of another subject than the ID token's must not be used.
  if ((claims as Claims).sub !== subject)
    throw new OidcError(401, 'userinfo', 'the userinfo subject differs from the ID token subject');
  return claims as Claims;
}

/**
 * Who signed in. With the code flow, providers often keep profile and email claims out of the ID
 * token and serve them from userinfo (Core §5.4), so userinfo is asked when the token names neither;
 * a failing userinfo fails the sign-in rather than silently switching the name to `sub`.
 */
export async function resolveUsername(
  fetch: FetchLike,
  doc: OidcDiscovery,
  idClaims: Claims & { sub: string },
  accessToken: string | undefined,
): Promise<string> {
  let claims: Claims = idClaims;
  if (
    usable(idClaims.preferred_username) === undefined &&
    usable(idClaims.email) === undefined &&
    doc.userinfo_endpoint &&
    accessToken
  ) {
    claims = { ...(await fetchUserInfo(fetch, doc.userinfo_endpoint, accessToken, idClaims.sub)), sub: idClaims.sub };
  }
  const username = usernameFromClaims(claims);
  if (!username) throw new OidcError(401, 'invalid-id-token', 'the provider names the user with no usable claim');
  return username;
}
