import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HubConfig } from '../config/hub-config';
import { errorBody } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { isSameOrigin, serverOrigin } from '../http/same-origin';
import { SESSION_ABSOLUTE_MS, type SessionStore } from './session-store';

export const SESSION_COOKIE = 'dd.sid';
const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session cookie and its same-origin check: the cookie attributes and proxy trust come from the server config. */
export interface SessionAuthDeps {
  config: Pick<HubConfig, 'server'>;
}

export function sessionCookieOf(c: Context<HubEnv>): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

export function setSessionCookie(c: Context<HubEnv>, deps: SessionAuthDeps, id: string): void {
  const sameSite = deps.config.server.cookieSameSite;
  const secure = serverOrigin(c, deps.config.server.trustProxy).startsWith('https:');
  setCookie(c, SESSION_COOKIE, id, {
    httpOnly: true,
    path: '/',
    // Browsers refuse SameSite=None without Secure.
    secure: secure || sameSite === 'none',
    sameSite: sameSite === 'none' ? 'None' : sameSite === 'strict' ? 'Strict' : 'Lax',
    maxAge: Math.floor(SESSION_ABSOLUTE_MS / 1000),
  });
}

export function clearSessionCookie(c: Context<HubEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
}

/**
 * Origin equal to ours or one of DD_SERVER_CORS_ORIGINS (their pages are let in on purpose,
 * docs/cors.md), or (without Origin) a Sec-Fetch-Site of same-origin or none.
 */
export function passesSameOrigin(c: Context<HubEnv>, trustProxy: number, corsOrigins: readonly string[]): boolean {
  const origin = c.req.header('origin');
  if (origin !== undefined) return corsOrigins.includes(origin) || isSameOrigin(c, trustProxy);
  const site = c.req.header('sec-fetch-site');
  return site === undefined || site === 'same-origin' || site === 'none';
}

/**
 * Sets a session principal from the cookie when there is one, and answers 403 to a
 * cookie-authenticated mutation from another origin (decisions §4; keys are exempt).
 */
export async function applySession(
  c: Context<HubEnv>,
  deps: SessionAuthDeps,
  sessions: SessionStore,
): Promise<Response | undefined> {
  const id = sessionCookieOf(c);
  const session = id === undefined ? undefined : await sessions.resolve(id);
  if (!session) return undefined;
  if (
    MUTATIONS.has(c.req.method) &&
    !passesSameOrigin(c, deps.config.server.trustProxy, deps.config.server.corsOrigins)
  ) {
    return c.json(
      errorBody(403, 'Cross-origin requests with a session cookie are refused', { reason: 'cross-origin' }),
      403,
    );
  }
  c.set('principal', session);
  return undefined;
}
