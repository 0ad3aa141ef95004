import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ErrorBodySchema } from '../../../shared/schemas/error-body';
import { statusText } from '../http/http-error';
import { CONFIRM_HEADER } from '../http/route-group';
import type { RegisteredRoute, RouteTable } from '../http/route-table';
import { hasOwnLimit, UNLIMITED_PATHS } from '../http/server-rate-limit';
import { SECURITY_SCHEMES, securityOf } from './security';

type JsonObject = Record<string, unknown>;

function schemaOf(schema: v.GenericSchema): JsonObject {
  const { $schema: _dialect, ...json } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    errorMode: 'ignore',
  }) as JsonObject;
  return json;
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function operationId(route: RegisteredRoute): string {
  const words = route.fullPath
    .replace(/^\/api\/v1/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment));
  return [route.spec.method, ...words]
    .join('-')
    .replace(/[^A-Za-z0-9]+(.)/g, (_m, c: string) => c.toUpperCase())
    .replace(/[^A-Za-z0-9]/g, '');
}

function parametersOf(route: RegisteredRoute): JsonObject[] {
  const params: JsonObject[] = [];
  for (const match of route.fullPath.matchAll(/:([A-Za-z0-9_]+)/g)) {
    params.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  for (const [name, param] of Object.entries(route.spec.query ?? {})) {
    params.push({
      name,
      in: 'query',
      required: false,
      schema: param.json,
      ...(param.description && { description: param.description }),
    });
  }
  if (route.spec.confirm) {
    params.push({
      name: CONFIRM_HEADER,
      in: 'header',
      required: true,
      schema: { type: 'string', const: route.spec.confirm },
    });
  }
  return params;
}

function successOf(route: RegisteredRoute): JsonObject {
  const { spec } = route;
  // A removed path never succeeds; documenting a 200 for it would promise what it never gives.
  if (spec.removed) return {};
  const status = String(spec.successStatus ?? (spec.websocket ? 101 : 200));
  const content = spec.response
    ? { 'application/json': { schema: schemaOf(spec.response) } }
    : spec.responseType && { [spec.responseType]: { schema: { type: 'string' } } };
  return {
    [status]: { description: spec.websocket ? 'Switching Protocols' : 'Success', ...(content && { content }) },
  };
}

function errorStatusesOf(route: RegisteredRoute): Record<number, string> {
  const { spec } = route;
  const statuses: Record<number, string> = { ...spec.statuses, 500: 'Internal failure' };
  if (spec.access !== 'public') statuses[403] ??= 'The API key lacks the required scope';
  if (spec.confirm) statuses[428] = `Missing or wrong ${CONFIRM_HEADER}`;
  // Every route without a limit of its own is counted by the server-wide one (decisions §5).
  if (!hasOwnLimit(route) && !UNLIMITED_PATHS.has(route.fullPath)) {
    statuses[429] ??=
      'The server-wide request limit (DD_SERVER_RATELIMIT_MAX per 15 minutes); Retry-After says when to come back';
  }
  return statuses;
}

function operationOf(route: RegisteredRoute): JsonObject {
  const { spec } = route;
  const responses: JsonObject = successOf(route);
  for (const [status, description] of Object.entries(errorStatusesOf(route))) {
    responses[status] = {
      description: description || statusText(Number(status)),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    };
  }
  return {
    operationId: operationId(route),
    summary: spec.summary,
    tags: [spec.tag],
    ...(spec.deprecated && { deprecated: true }),
    'x-required-scope': spec.access,
    security: securityOf(spec),
    parameters: parametersOf(route),
    ...(spec.body && {
      requestBody: { required: true, content: { 'application/json': { schema: schemaOf(spec.body) } } },
    }),
    responses,
  };
}

/**
 * The OpenAPI 3.1.0 document, generated from the route table: the same valibot schemas and
 * query definitions that validate requests, so the description cannot drift from behaviour.
 */
export function buildOpenApiDocument(routes: RouteTable, info: { title: string; version: string }): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes.routes) {
    const path = toOpenApiPath(route.fullPath);
    paths[path] ??= {};
    (paths[path] as JsonObject)[route.spec.method] = operationOf(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      ...info,
      description: 'Container update monitoring hub. Every route lists its required API-key scope in x-required-scope.',
      // The repository's LICENSE; OpenAPI 3.1 names it by its SPDX identifier.
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { ErrorBody: schemaOf(ErrorBodySchema) },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
