import type { Context } from 'hono';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import type { LoginVerifier } from '../auth/login-service';
import {
  clearSessionCookie,
  passesSameOrigin,
  type SessionAuthDeps,
  sessionCookieOf,
  setSessionCookie,
} from '../auth/session-auth';
import type { SessionStore } from '../auth/session-store';
import type { SignInLimits } from '../auth/sign-in-limits';
import type { HubConfig } from '../config/hub-config';
import { errorBody } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import type { RouteGroup } from '../http/route-group';
import type { AuditStore } from '../store/audit-store';

export { LOGIN_FAILURE_LIMIT } from '../auth/sign-in-limits';

// One body for every failure: nothing tells a wrong user from a wrong password or code.
const FAILURE_MESSAGE = 'Invalid credentials';

const field = (max: number) => v.pipe(v.string(), v.maxLength(max));
const LoginBodySchema = v.object({
  username: field(200),
  password: field(1024),
  otp: v.optional(field(20)),
  recoveryCode: v.optional(field(200)),
});
const UserSchema = v.object({
  username: v.string(),
  assurance: v.optional(v.string()),
  anonymous: v.optional(v.boolean()),
});

/** The basic sign-in routes: the users, where TOTP replays are remembered, the session cookie, and the audit of sign-ins. */
export interface AuthSessionRoutesDeps extends SessionAuthDeps {
  config: Pick<HubConfig, 'auth' | 'server' | 'anonymous'>;
  /** Checks passwords, TOTP and recovery codes (and remembers used ones). */
  verifier: LoginVerifier;
  /** Shared with HTTP Basic on the compatibility routes. */
  signInLimits: SignInLimits;
  logger: Logger;
  clientAddress: (c: Context) => string | undefined;
  audit: Pick<AuditStore, 'append'>;
}

/** POST /auth/login, POST /auth/logout and GET /auth/user (decisions §4). */
export function registerAuthSessionRoutes(api: RouteGroup, deps: AuthSessionRoutesDeps, sessions: SessionStore): void {
  const { verifier, signInLimits } = deps;
  const logger = deps.logger.child('auth.login');

  const tooMany = (c: Context<HubEnv>, retryAfterSeconds: number) => {
    c.header('Retry-After', String(retryAfterSeconds));
    return c.json(errorBody(429, 'Too many failed sign-in attempts', { retryAfterSeconds }), 429);
  };

  api.add(
    {
      method: 'post',
      path: '/auth/login',
      access: 'public',
      tag: 'auth',
      summary: 'Sign in with a basic user; sets the HttpOnly session cookie',
      body: LoginBodySchema,
      response: UserSchema,
      statuses: {
        401: 'Any credential wrong (one uniform answer)',
        403: 'Cross-origin',
        429: 'Too many failures from this address, or a retry too soon after failures of this username',
      },
    },
    async (c, { body }) => {
      if (!passesSameOrigin(c, deps.config.server.trustProxy, deps.config.server.corsOrigins)) {
        return c.json(errorBody(403, 'Cross-origin sign-in is refused', { reason: 'cross-origin' }), 403);
      }
      const address = deps.clientAddress(c) ?? 'unknown';
      const username = body.username.trim();
      // Past the address's limit, or too soon after this username's failures for an address that failed:
      // 429. An address that has not failed waits out the username's slow-down here (seconds at most).
      const refused = await signInLimits.admit(address, username);
      if (refused) return tooMany(c, refused.retryAfterSeconds);
      const assurance = await verifier.verify({ ...body, username });
      if (!assurance) {
        signInLimits.recordFailure(address, username);
        await deps.audit.append({
          action: 'auth-login',
          status: 'failed',
          details: `Sign-in failed for "${username.slice(0, 100)}" from ${address}`,
        });
        logger.warn('sign-in failed', { username: username.slice(0, 100), address });
        return c.json(errorBody(401, FAILURE_MESSAGE), 401);
      }
      const id = await sessions.create(username, assurance);
      setSessionCookie(c, deps, id);
      await deps.audit.append({
        action: 'auth-login',
        status: 'success',
        details: `${username} signed in (${assurance}) from ${address}`,
      });
      logger.info('signed in', { username, assurance });
      return c.json({ username, assurance });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/logout',
      access: 'session',
      tag: 'auth',
      summary: 'End the session and clear its cookie',
      successStatus: 204,
    },
    async (c) => {
      const id = sessionCookieOf(c);
      if (id !== undefined) await sessions.destroy(id);
      clearSessionCookie(c);
      return c.body(null, 204);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/auth/user',
      access: 'public',
      tag: 'auth',
      summary: 'Who is signed in',
      response: UserSchema,
      statuses: { 401: 'Not signed in' },
    },
    (c) => {
      const principal = c.get('principal');
      if (principal.kind === 'session') return c.json({ username: principal.username, assurance: principal.assurance });
      if (deps.config.anonymous) return c.json({ username: 'anonymous', anonymous: true });
      return c.json(errorBody(401, 'Not signed in'), 401);
    },
  );
}
