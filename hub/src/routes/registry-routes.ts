import * as v from 'valibot';
import { RegistrySchema } from '../../../shared/schemas/config-views';
import type { RouteGroup } from '../http/route-group';
import { describeRegistryProviders, type LoadedRegistryProviders } from '../registries/load-registry-providers';

/** The registry providers route: the providers the hub loaded. */
export interface RegistryRoutesDeps {
  /** Absent without registry providers: the list is empty. */
  registries: { providers: LoadedRegistryProviders } | undefined;
}

/** GET /api/v1/registries: configured providers, the built-in public ones, and the generic fallback. */
export function registerRegistryRoutes(api: RouteGroup, deps: RegistryRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/registries',
      access: 'read',
      tag: 'registries',
      summary: 'Registry providers, with their configuration masked',
      response: v.object({ data: v.array(RegistrySchema), total: v.number() }),
    },
    (c) => {
      const data = deps.registries ? describeRegistryProviders(deps.registries.providers) : [];
      return c.json({ data, total: data.length });
    },
  );
}
