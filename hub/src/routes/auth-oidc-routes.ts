import type { Context } from 'hono';
import type { Logger } from '../../../shared/logging/logger';
import { OidcError } from '../auth/oidc-error';
import { clearFlowCookie, flowCookieOf, setFlowCookie } from '../auth/oidc-flow-cookie';
import type { OidcLogin } from '../auth/oidc-login';
import { type SessionAuthDeps, setSessionCookie } from '../auth/session-auth';
import type { SessionStore } from '../auth/session-store';
import type { HubConfig } from '../config/hub-config';
import { errorBody, HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { qText } from '../http/query-params';
import { createRateLimiter } from '../http/rate-limit';
import type { RouteGroup } from '../http/route-group';
import type { AuditStore } from '../store/audit-store';

// Generous: some providers issue codes of a few KiB; the state's own shape is checked by the flow.
const callbackQuery = {
  code: qText({ maxLength: 8192, description: 'The authorization code' }),
  state: qText({ maxLength: 512, description: 'The state sent with the redirect' }),
  error: qText({ maxLength: 512, description: 'An OAuth error code when the provider refused' }),
  error_description: qText({ maxLength: 4096, description: 'Ignored' }),
  iss: qText({ maxLength: 2048, description: 'The issuer (RFC 9207), checked when present' }),
};

const oidcErrorResponse = (c: Context<HubEnv>, id: string, error: OidcError) =>
  c.json(
    errorBody(error.status, `OIDC sign-in failed: ${error.message}`, {
      provider: id,
      reason: error.reason,
      ...error.details,
    }),
    error.status,
  );

/** The OIDC sign-in routes: the providers' configuration, the session cookie, and the audit of sign-ins. */
export interface AuthOidcRoutesDeps extends SessionAuthDeps {
  config: Pick<HubConfig, 'auth' | 'server'>;
  logger: Logger;
  now: () => number;
  clientAddress: (c: Context) => string | undefined;
  audit: Pick<AuditStore, 'append'>;
}

/**
 * GET /auth/oidc/{id}/redirect and /auth/oidc/{id}/callback: the authorization-code flow with
 * PKCE (decisions §4). Public by nature: a browser reaches them before it has a session.
 */
export function registerAuthOidcRoutes(
  api: RouteGroup,
  deps: AuthOidcRoutesDeps,
  sessions: SessionStore,
  oidc: OidcLogin,
): void {
  const logger = deps.logger.child('auth.oidc');
  // Anyone can call the callback: one failed-sign-in entry per address and reason a minute keeps a
  // flood of bogus callbacks from rotating the audit trail out (as for failed API keys).
  const auditedFailures = createRateLimiter({ limit: 1, windowMs: 60_000, now: deps.now, maxKeys: 10_000 });
  const configOf = (id: string) => {
    const config = deps.config.auth.oidc.find((provider) => provider.id === id);
    if (!config || !oidc.has(id)) throw new HttpError(404, 'No such OIDC provider', { provider: id.slice(0, 100) });
    return config;
  };

  api.add(
    {
      method: 'get',
      path: '/auth/oidc/:id/redirect',
      access: 'public',
      tag: 'auth',
      summary: 'Start an OIDC sign-in: redirects to the provider (authorization code with PKCE)',
      successStatus: 302,
      statuses: {
        404: 'Unknown provider',
        502: 'The provider metadata is invalid',
        503: 'The provider cannot be reached',
      },
    },
    async (c) => {
      const id = c.req.param('id') ?? '';
      const config = configOf(id);
      try {
        const { url, state } = await oidc.begin(id);
        setFlowCookie(c, config, state);
        c.header('Cache-Control', 'no-store');
        return c.redirect(url, 302);
      } catch (error) {
        if (!(error instanceof OidcError)) throw error;
        logger.warn('OIDC provider unavailable', { provider: id, reason: error.reason, problem: error.message });
        return oidcErrorResponse(c, id, error);
      }
    },
  );

  api.add(
    {
      method: 'get',
      path: '/auth/oidc/:id/callback',
      access: 'public',
      tag: 'auth',
      summary: 'Finish an OIDC sign-in: sets the session cookie and redirects to /',
      query: callbackQuery,
      successStatus: 302,
      statuses: { 401: 'The sign-in failed (details.reason says at which step)', 404: 'Unknown provider' },
    },
    async (c, { query }) => {
      const id = c.req.param('id') ?? '';
      const config = configOf(id);
      const address = deps.clientAddress(c) ?? 'unknown';
      const boundState = flowCookieOf(c);
      // The flow cookie serves one callback, whatever its outcome.
      clearFlowCookie(c, config);
      c.header('Cache-Control', 'no-store');
      let username: string;
      try {
        ({ username } = await oidc.complete(id, query, boundState));
      } catch (error) {
        if (!(error instanceof OidcError)) throw error;
        if (auditedFailures.take(`${address} ${error.reason}`).allowed) {
          await deps.audit.append({
            action: 'auth-login',
            status: 'failed',
            details: `OIDC sign-in with "${id}" failed from ${address}: ${error.reason}`,
          });
          logger.warn('OIDC sign-in failed', { provider: id, reason: error.reason, problem: error.message, address });
        }
        return oidcErrorResponse(c, id, error);
      }
      const sessionId = await sessions.create(username, 'oidc');
      setSessionCookie(c, deps, sessionId);
      await deps.audit.append({
        action: 'auth-login',
        status: 'success',
        details: `${username} signed in with OIDC "${id}" from ${address}`,
      });
      logger.info('signed in', { username, provider: id, assurance: 'oidc' });
      return c.redirect('/', 302);
    },
  );
}
