import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ErrorBodySchema } from '../../../shared/schemas/error-body';
import { statusText } from '../http/http-error';
import { CONFIRM_HEADER } from '../http/route-group';
import type { RegisteredRoute, RouteTable } from '../http/route-table';

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

function operationOf(route: RegisteredRoute): JsonObject {
  const { spec } = route;
  const success = String(spec.successStatus ?? (spec.websocket ? 101 : 200));
  const responses: JsonObject = {
    [success]: {
      description: spec.websocket ? 'Switching Protocols' : 'Success',
      ...(spec.response && { content: { 'application/json': { schema: schemaOf(spec.response) } } }),
    },
  };
  const errorStatuses: Record<number, string> = { ...spec.statuses, 500: 'Internal failure' };
  if (spec.access !== 'public') errorStatuses[403] ??= 'The API key lacks the required scope';
  if (spec.confirm) errorStatuses[428] = `Missing or wrong ${CONFIRM_HEADER}`;
  for (const [status, description] of Object.entries(errorStatuses)) {
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
    ...(spec.access !== 'public' && {
      security: spec.access === 'session' ? [{ session: [] }] : [{ session: [] }, { apiKey: [spec.access] }],
    }),
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
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { ErrorBody: schemaOf(ErrorBodySchema) },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Scoped API key: ddk_<keyId>_<secret>' },
        session: { type: 'apiKey', in: 'cookie', name: 'dd.sid' },
      },
    },
  };
}
