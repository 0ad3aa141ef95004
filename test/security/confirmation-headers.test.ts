/**
 * http-interface §4.1: every operation of its table needs `X-DD-Confirm-Action` with its token, else 428; all
 * of them are served, and no route may ask for a token the table does not list.
 */
import { describe, expect, it } from 'vitest';
import { CONFIRM_HEADER } from '../../hub/src/http/route-group';
import { createMemoryHub, describeHubMatrix, expectJsonError, type HubClient } from '../support/hub-harness';
import { USERS_ENV } from './auth-fixtures';

/** The table of http-interface §4.1, with the request path each check sends. */
const CONFIRMED_OPERATIONS = [
  {
    method: 'post',
    route: '/api/v1/containers/:id/rollback',
    path: '/api/v1/containers/c0ffee/rollback',
    token: 'container-rollback',
  },
  { method: 'delete', route: '/api/v1/containers/:id', path: '/api/v1/containers/c0ffee', token: 'container-delete' },
  {
    method: 'post',
    route: '/api/v1/dependency-groups/:rootId/update',
    path: '/api/v1/dependency-groups/c0ffee/update',
    token: 'dependency-group-update',
  },
  {
    method: 'delete',
    route: '/api/v1/api-keys/:keyId',
    path: '/api/v1/api-keys/abcdefghijkl',
    token: 'api-key-revoke',
  },
  { method: 'post', route: '/api/v1/images/prune', path: '/api/v1/images/prune', token: 'image-prune' },
] as const;

const served = (client: HubClient, operation: (typeof CONFIRMED_OPERATIONS)[number]) =>
  client.hub.parts.routes.routes.find(
    (route) => route.spec.method === operation.method && route.matcher.test(operation.path),
  );

describeHubMatrix('confirmation header of http-interface §4.1', (client) => {
  it('serves every operation of the table, each with its token', () => {
    for (const operation of CONFIRMED_OPERATIONS) {
      expect(served(client(), operation)?.spec.confirm, operation.route).toBe(operation.token);
    }
  });

  it('asks for no token outside the table', () => {
    const confirmed = client()
      .hub.parts.routes.routes.filter((route) => route.spec.confirm !== undefined)
      .map((route) => `${route.spec.method} ${route.fullPath} ${route.spec.confirm}`);
    const listed = CONFIRMED_OPERATIONS.map((operation) => `${operation.method} ${operation.route} ${operation.token}`);
    for (const entry of confirmed) expect(listed).toContain(entry);
  });

  for (const operation of CONFIRMED_OPERATIONS) {
    it(`${operation.method.toUpperCase()} ${operation.route}: 428 without the header or with another token`, async () => {
      const send = (headers: Record<string, string>) =>
        client().request(operation.path, {
          method: operation.method.toUpperCase(),
          headers: { 'content-type': 'application/json', ...headers },
        });
      const variants: Record<string, string>[] = [
        {},
        { [CONFIRM_HEADER]: '' },
        { [CONFIRM_HEADER]: 'yes' },
        { [CONFIRM_HEADER]: operation.token.toUpperCase() },
        { [CONFIRM_HEADER]: `${operation.token}x` },
        { 'X-DD-Confirm': operation.token },
      ];
      for (const headers of variants) {
        const body = await expectJsonError(await send(headers), 428);
        expect(body.details, JSON.stringify(headers)).toEqual({ header: CONFIRM_HEADER, expected: operation.token });
      }
      // With the token the request goes past the check (to 404 for the unknown id, or 403 for a disabled feature).
      const passed = await send({ [CONFIRM_HEADER]: operation.token });
      expect(passed.status).not.toBe(428);
      expect(passed.status).toBeLessThan(500);
    });
  }
});

describe('confirmation header with authentication configured', () => {
  it('is checked after access: a caller without credentials gets 401, not a hint about the token', async () => {
    const client = await createMemoryHub(USERS_ENV);
    try {
      for (const operation of CONFIRMED_OPERATIONS) {
        await expectJsonError(await client.request(operation.path, { method: operation.method.toUpperCase() }), 401);
      }
    } finally {
      await client.close();
    }
  });
});
