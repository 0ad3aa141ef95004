import { expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../shared/scopes';
import { describeRuntimeMatrix, type HubClient, jsonInit } from '../support/hub-harness';

interface Operation {
  'x-required-scope': string;
  parameters?: { name: string; in: string; schema?: { const?: string } }[];
}

async function keyWith(client: HubClient, scopes: Scope[]): Promise<string> {
  const response = await client.request('/api/v1/api-keys', jsonInit('POST', { name: 'scope-walk', scopes }));
  expect(response.status).toBe(201);
  return (await response.json()).apiKey;
}

/** The request for one documented operation, with dummy path parameters and the right confirmation token. */
function requestFor(path: string, method: string, operation: Operation, apiKey: string): [string, RequestInit] {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'header' && parameter.schema?.const) headers[parameter.name] = parameter.schema.const;
  }
  const url = path.replace(/\{[^}]+\}/g, 'dummy');
  if (method === 'get' || method === 'delete') return [url, { method: method.toUpperCase(), headers }];
  return [url, jsonInit(method.toUpperCase(), {}, headers)];
}

/** Sends the request and reads the answer; streams (the UI event stream) are cut once the status is known. */
async function send(
  client: HubClient,
  [url, init]: [string, RequestInit],
): Promise<{ status: number; requiredScope?: unknown }> {
  const response = await client.request(url, init);
  if (response.status !== 403) {
    await response.body?.cancel();
    return { status: response.status };
  }
  const body = await response.json();
  return { status: 403, requiredScope: body.details?.requiredScope };
}

describeRuntimeMatrix('API key scopes over the OpenAPI document', (client) => {
  it('every keyed route refuses a key holding every other scope and admits one holding its own', async () => {
    const document = await (await client().request('/api/v1/openapi.json')).json();
    const keys = new Map<string, { own: string; others: string }>();
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const scope = operation['x-required-scope'];
        if (scope === 'public' || scope === 'session') continue;
        expect(SCOPES).toContain(scope);
        if (!keys.has(scope)) {
          const others = SCOPES.filter((other) => other !== scope && other !== 'admin');
          keys.set(scope, { own: await keyWith(client(), [scope as Scope]), others: await keyWith(client(), others) });
        }
        const { own, others } = keys.get(scope) as { own: string; others: string };
        const refused = await send(client(), requestFor(path, method, operation, others));
        expect({ path, method, ...refused }).toEqual({ path, method, status: 403, requiredScope: scope });
        const admitted = await send(client(), requestFor(path, method, operation, own));
        // Any answer but the scope refusal: dummy ids may well give 404, empty bodies 400.
        expect({ path, method, requiredScope: admitted.requiredScope }).toEqual({
          path,
          method,
          requiredScope: undefined,
        });
        expect(admitted.status).not.toBe(401);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect([...keys.keys()]).toContain('api-keys:manage');
  });
});
