import { expect, it } from 'vitest';
import { describeRuntimeMatrix } from '../../support/hub-harness';

describeRuntimeMatrix('OpenAPI document', (client, mode) => {
  // The route table is read from the hub object, which is in this process only in memory and on Node;
  // the document workerd serves is walked route by route in api-key-scopes.test.ts.
  it.skipIf(mode === 'workerd')('is OpenAPI 3.1.0 and lists every registered route with its scope', async () => {
    const doc = await (await client().request('/api/v1/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const routes = client().hub.parts.routes.routes;
    for (const route of routes) {
      const path = route.fullPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const operation = doc.paths[path]?.[route.spec.method];
      expect(operation, `${route.spec.method} ${path}`).toBeDefined();
      expect(operation['x-required-scope']).toBe(route.spec.access);
    }
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item as object));
    expect(operations).toHaveLength(routes.length);
  });

  it('documents bodies and query parameters from the validating schemas', async () => {
    const doc = await (await client().request('/api/v1/openapi.json')).json();
    const patch = doc.paths['/api/v1/settings'].patch;
    expect(patch['x-required-scope']).toBe('settings:write');
    expect(patch.requestBody.content['application/json'].schema.properties.updateMode.enum).toEqual([
      'notify',
      'manual',
      'auto',
    ]);
    const audit = doc.paths['/api/v1/audit'].get;
    const limit = audit.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(doc.paths['/api/v1/notifications/{id}'].patch.parameters[0]).toMatchObject({
      name: 'id',
      in: 'path',
      required: true,
    });
    expect(doc.paths['/api/v1/settings'].put.deprecated).toBe(true);
    expect(doc.components.schemas.ErrorBody.required).toEqual(['error']);
  });
});
