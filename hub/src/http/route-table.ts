import type { Context } from 'hono';
import type * as v from 'valibot';
import type { RouteAccess } from '../../../shared/scopes';
import type { DeprecationNotice } from './deprecation';
import type { HubEnv } from './hub-env';
import type { QuerySpec } from './query-params';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Credentials of a route's own, each a security scheme of the OpenAPI document: the action
 * webhook token (http-interface §5.8), the registry webhook signature (§5.9), the metrics token (§5.10).
 */
export type OwnSecurityScheme = 'webhookToken' | 'registrySignature' | 'metricsToken';

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
  /** Documentation only: the media type of a success body that is not JSON (a page, a text format). */
  responseType?: string;
  /** Documented statuses besides the success one, with their meaning. */
  statuses?: Record<number, string>;
  successStatus?: number;
  /**
   * A credential of the route's own that opens it whatever the principal (the metrics token,
   * http-interface §5.10); checked before `access`, so an unauthenticated caller holding it is let through.
   */
  grantedBy?: (c: Context<HubEnv>) => boolean | Promise<boolean>;
  /** Token required in X-DD-Confirm-Action (http-interface §4.1). */
  confirm?: string;
  deprecated?: boolean;
  /** Deprecation and Sunset headers, set on every answer of the route, errors included. */
  deprecation?: DeprecationNotice;
  websocket?: boolean;
  /** The handler reads the body's exact bytes itself, whatever their type (a signed webhook payload). */
  rawBody?: boolean;
  /**
   * The route knows its callers by a credential of its own (the metrics or a webhook token, a
   * registry's signature): a Bearer value not shaped like an API key is left to it instead of
   * failing as a malformed key.
   */
  ownCredential?: boolean;
  /** Documentation only: that credential's OpenAPI security scheme. */
  securityScheme?: OwnSecurityScheme;
  /** A removed path kept only to answer 410 with its replacement: documented without a success answer. */
  removed?: boolean;
}

export interface RegisteredRoute {
  spec: RouteSpec;
  fullPath: string;
  matcher: RegExp;
}

// A parameter at the start of a segment, with Hono's optional pattern: `:id` or `:id{(?!stats$)[^/]+}`.
const PARAMETER = /(?<=^|\/):([A-Za-z0-9_]+)(?:\{((?:[^{}]|\{[^{}]*\})+)\})?/g;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The path as documented and labelled in metrics: parameter patterns reduced to their names. */
export function plainPath(path: string): string {
  return path.replace(PARAMETER, ':$1');
}

function compilePathPattern(path: string): RegExp {
  let source = '';
  let end = 0;
  for (const match of path.matchAll(PARAMETER)) {
    source += `${escapeRegExp(path.slice(end, match.index))}${match[2] ? `(?:${match[2]})` : '[^/]+'}`;
    end = match.index + match[0].length;
  }
  // Strict like Hono's router: `/health/` is another path, so it must not earn a 405 here.
  return new RegExp(`^${source}${escapeRegExp(path.slice(end))}$`);
}

/** The registry of every route, read by the OpenAPI generator and the 405 handler. */
export class RouteTable {
  readonly routes: RegisteredRoute[] = [];

  /** The path may hold Hono parameter patterns; the route keeps the plain form. */
  add(spec: RouteSpec, fullPath: string): RegisteredRoute {
    const route = { spec, fullPath: plainPath(fullPath), matcher: compilePathPattern(fullPath) };
    this.routes.push(route);
    return route;
  }

  /**
   * The route a concrete path names: the one registered for `method` (upper or lower case, HEAD as
   * GET) when there is one, else the first registered for the path with any method.
   */
  routeOf(path: string, method?: string): RegisteredRoute | undefined {
    const wanted = method?.toLowerCase() === 'head' ? 'get' : method?.toLowerCase();
    let any: RegisteredRoute | undefined;
    for (const route of this.routes) {
      if (!route.matcher.test(path)) continue;
      if (route.spec.method === wanted) return route;
      any ??= route;
    }
    return any;
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
