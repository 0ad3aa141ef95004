import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import { assertAccess } from '../auth/principal';
import { setDeprecationHeaders } from './deprecation';
import { HttpError } from './http-error';
import type { HubEnv } from './hub-env';
import type { QuerySpec, QueryValues } from './query-params';
import type { RouteSpec, RouteTable } from './route-table';

export const CONFIRM_HEADER = 'X-DD-Confirm-Action';
const MAX_REPORTED_ISSUES = 10;

export interface RouteInput<Q extends QuerySpec, B> {
  query: QueryValues<Q>;
  body: B;
}

export type RouteHandler<Q extends QuerySpec, B> = (
  c: Context<HubEnv>,
  input: RouteInput<Q, B>,
) => Response | Promise<Response>;

export interface RouteGroup {
  readonly app: Hono<HubEnv>;
  add<Q extends QuerySpec = Record<never, never>, B = undefined>(
    spec: RouteSpec<Q, B>,
    handler: RouteHandler<Q, B>,
  ): void;
}

const MAX_ECHO = 200;

/** Error text may quote the input; a 1 MB key must not come back as a 1 MB error. */
export function clip(text: string): string {
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text;
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): { path: string; message: string }[] {
  return issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => ({
    path: clip(v.getDotPath(issue) ?? ''),
    message: clip(issue.message),
  }));
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

class ForbiddenKeyError extends Error {}

/**
 * JSON.parse that refuses prototype-related keys anywhere. valibot's record schemas skip such
 * keys silently, so `{"templates":{"__proto__":…}}` would otherwise pass as an empty record.
 */
function parseJsonStrict(text: string): unknown {
  return JSON.parse(text, (key, value) => {
    if (FORBIDDEN_KEYS.has(key)) throw new ForbiddenKeyError(key);
    return value;
  });
}

/**
 * Where the schema produced an object from an array (valibot's object and record schemas accept
 * arrays, since typeof [] is 'object'), the body had the wrong shape: returns that path.
 */
function arrayTakenForObject(input: unknown, output: unknown, path: string): string | undefined {
  if (typeof output !== 'object' || output === null || typeof input !== 'object' || input === null) return undefined;
  if (Array.isArray(input) !== Array.isArray(output)) return path;
  for (const [key, value] of Object.entries(output)) {
    const found = arrayTakenForObject((input as Record<string, unknown>)[key], value, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

function parseQuery(c: Context<HubEnv>, spec: QuerySpec | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!spec) return out;
  for (const [name, param] of Object.entries(spec)) {
    const result = v.safeParse(param.schema, c.req.query(name));
    if (!result.success) {
      throw new HttpError(
        400,
        `Invalid query parameter "${clip(name)}": ${clip(result.issues[0]?.message ?? 'invalid value')}`,
        {
          parameter: name,
        },
      );
    }
    out[name] = result.output;
  }
  return out;
}

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

const BODILESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

async function parseBody(c: Context<HubEnv>, spec: RouteSpec): Promise<unknown> {
  // The handler reads the exact bytes itself (a signed payload): decoding them here would alter them.
  if (spec.rawBody || BODILESS_METHODS.has(c.req.method)) return undefined;
  const text = await c.req.text();
  // Also where the route ignores its body: an HTML form or a no-cors fetch can only send form,
  // multipart or text bodies, so this closes to them what an Origin check alone might let through.
  if (text.trim() !== '' && !isJsonContentType(c.req.header('content-type'))) {
    throw new HttpError(415, 'The request body must be JSON (Content-Type: application/json)');
  }
  const schema = spec.body as v.GenericSchema | undefined;
  if (!schema) return undefined;
  let value: unknown;
  if (text.trim() !== '') {
    try {
      value = parseJsonStrict(text);
    } catch (error) {
      if (error instanceof ForbiddenKeyError) {
        throw new HttpError(400, 'Invalid request body', {
          issues: [{ path: '', message: `The key "${error.message}" is not allowed` }],
        });
      }
      throw new HttpError(400, 'Malformed JSON in the request body');
    }
  }
  const result = v.safeParse(schema, value);
  const misplacedArray = result.success ? arrayTakenForObject(value, result.output, '') : undefined;
  if (misplacedArray !== undefined) {
    throw new HttpError(400, 'Invalid request body', {
      issues: [{ path: misplacedArray, message: 'Expected a JSON object but received an array' }],
    });
  }
  if (!result.success) {
    if (value === undefined) throw new HttpError(400, 'A JSON request body is required');
    throw new HttpError(400, 'Invalid request body', { issues: describeIssues(result.issues) });
  }
  return result.output;
}

/**
 * A group of routes under one base path. Each route is recorded in the table (for OpenAPI and
 * 405s) and wrapped so that access, the confirmation header, the query and the body are all
 * checked before its handler runs.
 */
export function createRouteGroup(table: RouteTable, basePath: string): RouteGroup {
  const app = new Hono<HubEnv>();
  return {
    app,
    add(spec, handler) {
      const fullPath = `${basePath}${spec.path}`.replace(/\/$/, '') || '/';
      const route = table.add(spec as RouteSpec, fullPath);
      app.on(spec.method.toUpperCase(), spec.path, async (c) => {
        c.set('route', route.fullPath);
        // Before any check, so error answers of a deprecated route carry the notice too.
        if (spec.deprecation) setDeprecationHeaders(c, spec.deprecation);
        if (!(await spec.grantedBy?.(c))) assertAccess(c.get('principal'), spec.access);
        if (spec.confirm !== undefined && c.req.header(CONFIRM_HEADER) !== spec.confirm) {
          throw new HttpError(428, `This action needs the header ${CONFIRM_HEADER}: ${spec.confirm}`, {
            header: CONFIRM_HEADER,
            expected: spec.confirm,
          });
        }
        const query = parseQuery(c, spec.query);
        const body = await parseBody(c, spec as RouteSpec);
        return handler(c, { query, body } as never);
      });
    },
  };
}
