import * as v from 'valibot';
import { AUTH_STRATEGIES_DEPRECATION } from '../http/deprecation';
import type { RouteGroup } from '../http/route-group';
import type { HubServices } from '../hub-services';

const ProviderSchema = v.object({ type: v.string(), name: v.string() });
const AuthStatusSchema = v.object({ providers: v.array(ProviderSchema), errors: v.array(v.string()) });

/** The login methods on offer. Basic and OIDC providers join with the authentication capability. */
function authStatus(services: HubServices) {
  if (services.config.anonymous) return { providers: [{ type: 'anonymous', name: 'anonymous' }], errors: [] as string[] };
  const { basic, unsupported } = services.config.auth;
  return {
    providers: basic.map((user) => ({ type: 'basic', name: user.id })),
    errors: unsupported.map((provider) => `The ${provider.type} provider "${provider.name}" is not supported yet and was ignored`),
  };
}

/**
 * GET /api/v1/auth/status, its permanent unversioned alias (spec 9.2) and the deprecated
 * GET /auth/strategies (spec 9.5).
 */
export function registerAuthStatusRoutes(api: RouteGroup, root: RouteGroup, services: HubServices): void {
  const spec = { method: 'get', access: 'public', tag: 'auth', response: AuthStatusSchema } as const;
  api.add({ ...spec, path: '/auth/status', summary: 'Authentication providers and configuration errors' }, (c) =>
    c.json(authStatus(services)),
  );
  root.add({ ...spec, path: '/api/auth/status', summary: 'Permanent alias of /api/v1/auth/status' }, (c) => c.json(authStatus(services)));
  root.add(
    {
      ...spec,
      path: '/auth/strategies',
      summary: 'Deprecated: use /api/v1/auth/status',
      deprecated: true,
      deprecation: AUTH_STRATEGIES_DEPRECATION,
      response: v.object({ strategies: v.array(ProviderSchema), warnings: v.array(v.string()) }),
    },
    (c) => {
      const { providers, errors } = authStatus(services);
      return c.json({ strategies: providers, warnings: errors });
    },
  );
}
