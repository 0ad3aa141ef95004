/** The reference page's reading of the document (ui/src/docs/openapi-model.ts), without a browser. */
import { describe, expect, it } from 'vitest';
import { groupByTag, matchesFilter, type OpenApiDocument, schemaText } from '../../ui/src/docs/openapi-model';

describe('schemaText', () => {
  it('writes objects with required and optional fields, unions, arrays, records and refs', () => {
    const text = schemaText({
      type: 'object',
      required: ['name', 'scopes'],
      properties: {
        name: { type: 'string' },
        scopes: { type: 'array', items: { enum: ['read', 'admin'] } },
        expiresAt: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        error: { $ref: '#/components/schemas/ErrorBody' },
        kind: { const: 'key' },
        count: { type: ['integer', 'null'] },
      },
    });
    expect(text).toBe(
      [
        '{',
        '  name: string;',
        "  scopes: ('read' | 'admin')[];",
        '  expiresAt?: string | null;',
        '  labels?: Record<string, string>;',
        '  error?: ErrorBody;',
        "  kind?: 'key';",
        '  count?: integer | null;',
        '}',
      ].join('\n'),
    );
  });

  it('stays bounded on a deep schema and says unknown where there is none', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = { type: 'array', items: deep };
    expect(schemaText(deep)).toContain('…');
    expect(schemaText(undefined)).toBe('unknown');
  });
});

describe('groupByTag and matchesFilter', () => {
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/b': { post: { tags: ['zeta'], summary: 'make b' }, get: { tags: ['zeta'], summary: 'read b' } },
      '/a': { get: { tags: ['alpha'], summary: 'read a', 'x-required-scope': 'audit:read' } },
    },
  };

  it('groups by tag, tags and paths in order, GET before POST', () => {
    const groups = groupByTag(document);
    expect([...groups.keys()]).toEqual(['alpha', 'zeta']);
    expect(groups.get('zeta')?.map((entry) => `${entry.method} ${entry.path}`)).toEqual(['get /b', 'post /b']);
  });

  it('matches method, path, summary and scope, ignoring case', () => {
    const [entry] = groupByTag(document).get('alpha') ?? [];
    if (!entry) throw new Error('no operation');
    for (const filter of ['', 'GET', '/a', 'READ A', 'audit:read'])
      expect(matchesFilter(entry, filter), filter).toBe(true);
    expect(matchesFilter(entry, 'webhook')).toBe(false);
  });
});
