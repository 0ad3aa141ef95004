import type * as v from 'valibot';
import type { RouteAccess } from '../../../shared/scopes';
import type { DeprecationNotice } from './deprecation';
import type { QuerySpec } from './query-params';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Everything the hub knows about a route: enough to validate it, guard it and document it. */
export interface RouteSpec<Q extends QuerySpec = QuerySpec, B = unknown> {
  method: HttpMethod;
  /** Hono path syntax relative to the group, e.g. `/notifications/:id`. */
  path: string;
  access: RouteAccess;
  summary: string;
  tag: string;
  query?: Q;
  body?: v.GenericSchema<unknown, B>;
  /** Documentation only: the success body. */
  response?: v.GenericSchema;
  /** Documented statuses besides the success one, with their meaning. */
  statuses?: Record<number, string>;
  successStatus?: number;
  /** Token required in X-DD-Confirm-Action (spec 4.1). */
  confirm?: string;
  deprecated?: boolean;
  /** Deprecation and Sunset headers, set on every answer of the route, errors included. */
  deprecation?: DeprecationNotice;
  websocket?: boolean;
}

export interface RegisteredRoute {
  spec: RouteSpec;
  fullPath: string;
  matcher: RegExp;
}

function compilePathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  // Strict like Hono's router: `/health/` is another path, so it must not earn a 405 here.
  return new RegExp(`^${source}$`);
}

/** The registry of every route, read by the OpenAPI generator and the 405 handler. */
export class RouteTable {
  readonly routes: RegisteredRoute[] = [];

  add(spec: RouteSpec, fullPath: string): void {
    this.routes.push({ spec, fullPath, matcher: compilePathPattern(fullPath) });
  }

  /** Methods registered for a concrete request path (upper case; HEAD implied by GET). */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) {
      if (!route.matcher.test(path)) continue;
      methods.add(route.spec.method.toUpperCase());
      if (route.spec.method === 'get') methods.add('HEAD');
    }
    return [...methods];
  }
}
