import { describe, expect, it } from 'vitest';
import { plainPath, type RouteSpec, RouteTable } from './route-table';

const spec = (method: RouteSpec['method'], path: string): RouteSpec => ({
  method,
  path,
  access: 'read',
  tag: 't',
  summary: 's',
});

describe('route table', () => {
  it('honours a parameter pattern, so a reserved name earns a 405 rather than reaching the route', () => {
    const table = new RouteTable();
    table.add(spec('get', '/c/stats'), '/api/c/stats');
    table.add(spec('get', '/c/:id'), '/api/c/:id');
    table.add(spec('delete', '/c/:id{(?!stats$)[^/]+}'), '/api/c/:id{(?!stats$)[^/]+}');
    expect(table.allowedMethods('/api/c/stats').sort()).toEqual(['GET', 'HEAD']);
    expect(table.allowedMethods('/api/c/abc').sort()).toEqual(['DELETE', 'GET', 'HEAD']);
    expect(table.allowedMethods('/api/c/statsx').sort()).toEqual(['DELETE', 'GET', 'HEAD']);
    expect(table.allowedMethods('/api/c/a/b')).toEqual([]);
    expect(table.routes.map((route) => route.fullPath)).toEqual(['/api/c/stats', '/api/c/:id', '/api/c/:id']);
  });

  it('documents the plain path', () => {
    expect(plainPath('/api/c/:id{[0-9a-f]{64}}/logs/:n')).toBe('/api/c/:id/logs/:n');
    expect(plainPath('/api/a.b/:x')).toBe('/api/a.b/:x');
  });
});
