import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HubEnv } from '../http/hub-env';
import type { OidcProviderConfig } from './oidc-config';
import { PENDING_FLOW_TTL_MS } from './oidc-pending-flows';

/**
 * Binds a sign-in to the browser that started it: the state travels in this cookie as well as
 * through the provider, and the callback wants both. Without it, anyone could send a victim a
 * callback link carrying the attacker's own code and sign the victim in as the attacker.
 */
export const OIDC_FLOW_COOKIE = 'dd.oidc';

// Scoped to the callback as the browser sees it (REDIRECT), which may sit behind a proxy prefix.
function cookieOptions(config: OidcProviderConfig) {
  const redirect = new URL(config.redirect);
  return { path: redirect.pathname, secure: redirect.protocol === 'https:' };
}

export function setFlowCookie(c: Context<HubEnv>, config: OidcProviderConfig, state: string): void {
  setCookie(c, OIDC_FLOW_COOKIE, state, {
    ...cookieOptions(config),
    httpOnly: true,
    // Lax whatever DD_SERVER_COOKIE_SAMESITE says: the provider's redirect back is a cross-site
    // top-level navigation, which a Strict cookie would miss.
    sameSite: 'Lax',
    maxAge: Math.floor(PENDING_FLOW_TTL_MS / 1000),
  });
}

export function flowCookieOf(c: Context<HubEnv>): string | undefined {
  return getCookie(c, OIDC_FLOW_COOKIE);
}

export function clearFlowCookie(c: Context<HubEnv>, config: OidcProviderConfig): void {
  deleteCookie(c, OIDC_FLOW_COOKIE, cookieOptions(config));
}
