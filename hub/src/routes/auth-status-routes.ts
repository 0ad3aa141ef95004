import * as v from 'valibot';
import { AuthProviderSchema, AuthStatusSchema } from '../../../shared/schemas/auth-status';
import type { OidcLogin } from '../auth/oidc-login';
import type { HubConfig } from '../config/hub-config';
import { AUTH_STRATEGIES_DEPRECATION } from '../http/deprecation';
import type { RouteGroup } from '../http/route-group';

/** The authentication status routes: which login methods the configuration offers. */
export interface AuthStatusRoutesDeps {
  config: Pick<HubConfig, 'anonymous' | 'auth'>;
}

/**
 * The login methods on offer. `errors` holds real problems only: an OIDC provider whose discovery
 * document could not be had at its last attempt (it is fetched on first use, not at start).
 */
function authStatus(deps: AuthStatusRoutesDeps, oidc: OidcLogin) {
  if (deps.config.anonymous) return { providers: [{ type: 'anonymous', name: 'anonymous' }], errors: [] as string[] };
  return {
    providers: [
      ...deps.config.auth.basic.map((user) => ({ type: 'basic', name: user.id })),
      ...oidc.ids.map((id) => ({ type: 'oidc', name: id })),
    ],
    errors: oidc.problems(),
  };
}

/**
 * GET /api/v1/auth/status, its permanent unversioned alias (http-interface §9.2) and the deprecated
 * GET /auth/strategies (http-interface §9.5).
 */
export function registerAuthStatusRoutes(
  api: RouteGroup,
  root: RouteGroup,
  deps: AuthStatusRoutesDeps,
  oidc: OidcLogin,
): void {
  const spec = { method: 'get', access: 'public', tag: 'auth', response: AuthStatusSchema } as const;
  api.add({ ...spec, path: '/auth/status', summary: 'Authentication providers and configuration errors' }, (c) =>
    c.json(authStatus(deps, oidc)),
  );
  root.add({ ...spec, path: '/api/auth/status', summary: 'Permanent alias of /api/v1/auth/status' }, (c) =>
    c.json(authStatus(deps, oidc)),
  );
  root.add(
    {
      ...spec,
      path: '/auth/strategies',
      summary: 'Deprecated: use /api/v1/auth/status',
      deprecated: true,
      deprecation: AUTH_STRATEGIES_DEPRECATION,
      response: v.object({ strategies: v.array(AuthProviderSchema), warnings: v.array(v.string()) }),
    },
    (c) => {
      const { providers, errors } = authStatus(deps, oidc);
      return c.json({ strategies: providers, warnings: errors });
    },
  );
}
