/**
 * The part of an OpenAPI 3.1 document the reference page reads, and how it groups it. Only what
 * the hub's own generator (hub/src/openapi/build-openapi.ts) writes: no external $refs, one tag
 * per operation.
 */
export type JsonSchema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  deprecated?: boolean;
  'x-required-scope'?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: JsonSchema }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, { description?: string }> };
}

export interface ListedOperation {
  id: string;
  method: string;
  path: string;
  operation: Operation;
}

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'];

/** Operations by tag, tags in alphabetical order, operations by path then method. */
export function groupByTag(document: OpenApiDocument): Map<string, ListedOperation[]> {
  const groups = new Map<string, ListedOperation[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHOD_ORDER.includes(method)) continue;
      const tag = operation.tags?.[0] ?? 'other';
      const id = operation.operationId ?? `${method}-${path}`;
      groups.set(tag, [...(groups.get(tag) ?? []), { id, method, path, operation }]);
    }
  }
  for (const list of groups.values()) {
    list.sort(
      (a, b) => a.path.localeCompare(b.path) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
    );
  }
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)));
}

/** True when the filter text appears in the method, path, summary or scope (case-insensitive). */
export function matchesFilter(entry: ListedOperation, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  if (needle === '') return true;
  const haystack = `${entry.method} ${entry.path} ${entry.operation.summary ?? ''} ${entry.operation['x-required-scope'] ?? ''}`;
  return haystack.toLowerCase().includes(needle);
}

const MAX_DEPTH = 6;
const INDENT = '  ';

function literal(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
}

/**
 * A JSON schema as a TypeScript-like type, indented: far easier to read in a reference than the
 * schema itself. Depth is bounded so a recursive or very deep schema stays readable.
 */
export function schemaText(schema: JsonSchema | undefined, depth = 0): string {
  if (!schema) return 'unknown';
  if (depth > MAX_DEPTH) return '…';
  const ref = schema.$ref;
  if (typeof ref === 'string') return ref.slice(ref.lastIndexOf('/') + 1);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants)) return variants.map((variant) => schemaText(variant, depth + 1)).join(' | ');
  if (Array.isArray(schema.allOf))
    return (schema.allOf as JsonSchema[]).map((part) => schemaText(part, depth + 1)).join(' & ');
  const type = schema.type;
  if (Array.isArray(type)) return type.map((single) => schemaText({ ...schema, type: single }, depth)).join(' | ');
  if (type === 'array') return `${wrapUnion(schemaText(schema.items as JsonSchema | undefined, depth + 1))}[]`;
  if (type === 'object' || schema.properties) return objectText(schema, depth);
  if (type === 'integer') return 'integer';
  return typeof type === 'string' ? type : 'unknown';
}

function wrapUnion(text: string): string {
  return text.includes(' | ') || text.includes(' & ') ? `(${text})` : text;
}

function objectText(schema: JsonSchema, depth: number): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  const extra = schema.additionalProperties;
  if (names.length === 0) {
    return extra && typeof extra === 'object'
      ? `Record<string, ${schemaText(extra as JsonSchema, depth + 1)}>`
      : 'object';
  }
  const pad = INDENT.repeat(depth + 1);
  const lines = names.map(
    (name) => `${pad}${name}${required.has(name) ? '' : '?'}: ${schemaText(properties[name], depth + 1)};`,
  );
  return `{\n${lines.join('\n')}\n${INDENT.repeat(depth)}}`;
}
