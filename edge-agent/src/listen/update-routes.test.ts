import { describe, expect, it } from 'vitest';
import { useDockerlessListenAgent } from '../../../test/support/dockerless-listen-agent';

const SECRET = 'update-routes-secret-0123456789';
const OPERATION = {
  id: '6f1c2a0e-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
  kind: 'update',
  source: 'api',
  status: 'queued',
  phase: 'prepare',
  containerId: 'c1',
  containerName: 'web',
  targetImage: '127.0.0.1:5000/web:2.0.0',
  watcher: 'local',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const BODY = { operation: OPERATION, options: { healthTimeoutMs: 1_000 } };

/**
 * The update, image and operation routes of a listen-mode agent as `npm run agent -- --listen`
 * starts it, over real HTTP: the secret, bad bodies and unknown names are refused before any
 * Docker call (its watcher's socket does not exist, so a call that reached Docker would answer 500).
 */
describe('listen-mode agent: update and image routes, refusals', () => {
  const listen = useDockerlessListenAgent(SECRET);

  const call = (path: string, init: RequestInit = {}, secret: string | null = SECRET) =>
    fetch(`${listen.agent().url}${path}`, {
      ...init,
      headers: { ...(secret !== null && { 'X-Dd-Agent-Secret': secret }), ...init.headers },
    });
  const update = (body: unknown, path = '/api/containers/c1/update?watcher=local') =>
    call(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it.each([
    ['GET', '/api/images?watcher=local'],
    ['DELETE', '/api/images/sha256:ab?watcher=local'],
    ['POST', '/api/containers/c1/update?watcher=local'],
    ['GET', '/api/operations'],
    ['POST', `/api/operations/${OPERATION.id}/cancel`],
  ])('refuses %s %s with 401 without the secret or with a wrong one', async (method, path) => {
    for (const secret of [null, 'wrong', `${SECRET}x`]) {
      const response = await call(path, { method, body: method === 'POST' ? JSON.stringify(BODY) : null }, secret);
      expect(response.status, `secret ${JSON.stringify(secret)}`).toBe(401);
      expect(await response.json()).toEqual({ error: 'A valid X-Dd-Agent-Secret header is required' });
    }
  });

  it('answers 400 naming what is wrong for a body that is no update request', async () => {
    const cases: [unknown, string][] = [
      ['not json', 'body'],
      ['', 'body'],
      [[], 'body'],
      [{}, 'body'],
      [{ operation: OPERATION }, 'body'],
      [{ ...BODY, options: { healthTimeoutMs: -1 } }, 'body'],
      [{ ...BODY, operation: { ...OPERATION, status: 'exploded' } }, 'body'],
      [{ ...BODY, operation: { ...OPERATION, containerId: 'c2' } }, 'operation.containerId'],
      [{ ...BODY, operation: { ...OPERATION, watcher: 'other' } }, 'operation.watcher'],
    ];
    for (const [body, parameter] of cases) {
      const response = await update(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { details?: { parameter?: string } }).details?.parameter).toBe(parameter);
    }
    const tooLong = await call(`/api/images/${'a'.repeat(300)}?watcher=local`, { method: 'DELETE' });
    expect(tooLong.status).toBe(400);
  });

  it('answers 404 for an unknown watcher, an operation it does not run and an unknown route', async () => {
    expect((await call('/api/images?watcher=nope')).status).toBe(404);
    expect((await call('/api/images/sha256:ab?watcher=nope', { method: 'DELETE' })).status).toBe(404);
    expect((await update(BODY, '/api/containers/c1/update?watcher=nope')).status).toBe(404);
    const cancel = await call(`/api/operations/${OPERATION.id}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(404);
    expect(((await cancel.json()) as { error: string }).error).toMatch(/No running update/);
    expect((await call('/api/operations/x', { method: 'GET' })).status).toBe(404);
  });

  it('reports no operation when it has run none, and journalled none of the refused requests', async () => {
    const response = await call('/api/operations');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
  });
});
