import type { RouteGroup } from '../http/route-group';
import type { HubServices } from '../hub-services';
import { buildOpenApiDocument } from '../openapi/build-openapi';
import { PRODUCT_NAME } from './health-routes';

export function registerOpenApiRoute(api: RouteGroup, services: HubServices): void {
  // Built on first request: by then every route module has registered.
  let document: Record<string, unknown> | undefined;
  api.add({ method: 'get', path: '/openapi.json', access: 'public', tag: 'system', summary: 'This OpenAPI 3.1.0 description' }, (c) => {
    document ??= buildOpenApiDocument(services.routes, { title: `${PRODUCT_NAME} API`, version: services.deps.version });
    return c.json(document);
  });
}
