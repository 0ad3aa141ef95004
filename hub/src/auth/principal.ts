import { type RouteAccess, type Scope, scopeSatisfies } from '../../../shared/scopes';
import { HttpError } from '../http/http-error';

/** Who is calling. Sessions and keys arrive with the authentication capability. */
export type Principal =
  | { kind: 'anonymous' }
  /** No credential while authentication is configured: public routes only. */
  | { kind: 'unauthenticated' }
  /** `oidc`: signed in at an OpenID Connect provider, which owns the second factor if any. */
  | { kind: 'session'; username: string; assurance: 'password' | 'otp' | 'recovery-code' | 'oidc' }
  | { kind: 'api-key'; keyId: string; scopes: readonly Scope[] };

export const ANONYMOUS: Principal = { kind: 'anonymous' };
export const UNAUTHENTICATED: Principal = { kind: 'unauthenticated' };

/**
 * Throws unless the principal may use a route with this access. Keys are held to their
 * scopes; session-only routes are closed to every key (decisions §5).
 */
export function assertAccess(principal: Principal, access: RouteAccess): void {
  if (access === 'public') return;
  if (principal.kind === 'unauthenticated') throw new HttpError(401, 'Sign in or present an API key');
  if (principal.kind !== 'api-key') return;
  if (access === 'session') throw new HttpError(403, 'This route needs a signed-in session; API keys cannot use it');
  if (!scopeSatisfies(principal.scopes, access)) {
    throw new HttpError(403, `This API key lacks the scope ${access}`, { requiredScope: access });
  }
}
