import type { RouteGroup } from '../http/route-group';
import type { RouteTable } from '../http/route-table';
import { buildOpenApiDocument } from '../openapi/build-openapi';
import { PRODUCT_NAME } from './health-routes';

/** The OpenAPI document: every registered route, and the product version it describes. */
export interface OpenApiRouteDeps {
  routes: RouteTable;
  version: string;
}

export function registerOpenApiRoute(api: RouteGroup, deps: OpenApiRouteDeps): void {
  // Built on first request: by then every route module has registered.
  let document: Record<string, unknown> | undefined;
  api.add(
    {
      method: 'get',
      path: '/openapi.json',
      access: 'public',
      tag: 'system',
      summary: 'This OpenAPI 3.1.0 description',
    },
    (c) => {
      document ??= buildOpenApiDocument(deps.routes, { title: `${PRODUCT_NAME} API`, version: deps.version });
      return c.json(document);
    },
  );
}
