import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpdateOperation } from '../../../shared/update-engine';
import { EdgeRequestError } from '../agents/edge-requests';
import { ListenLink } from './listen-link';

interface Seen {
  method: string;
  url: string;
  body: string;
}

const OPERATION = {
  id: '6f1c2a0e-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
  containerId: 'c1',
  watcher: 'local',
} as UpdateOperation;

/**
 * The link's updates, image list and image removal as calls of a listen-mode agent's routes, and
 * how the agent's answers become the request errors the hub's routes answer for. Regression
 * (issue 15 item 8, and issue 14 for image.pull): these requests were refused without a call, as
 * the interface had no such route.
 */
describe('ListenLink: updates and images', () => {
  let server: Server;
  const seen: Seen[] = [];
  /** The next answer of the agent: status and JSON body (none for 204). */
  let answer: { status: number; body?: unknown; delayMs?: number };
  let link: ListenLink;

  beforeAll(async () => {
    server = createServer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      seen.push({ method: request.method ?? '', url: request.url ?? '', body });
      const { status, body: json, delayMs } = request.url?.endsWith('/cancel') ? { status: 202 } : answer;
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (json === undefined) response.writeHead(status).end();
      else response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    link = new ListenLink(
      {
        agentName: 'peer',
        baseUrl: `http://127.0.0.1:${port}`,
        secret: 'not-used-here',
        fetch: (input, init) => fetch(input, init),
        now: Date.now,
      },
      () => undefined,
    );
  });
  beforeEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    link.close(1000, 'test over');
    await new Promise((resolve) => server.close(resolve));
  });

  const failure = async (request: Parameters<ListenLink['request']>[0]) => {
    const error = await link.request(request).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(EdgeRequestError);
    return error as EdgeRequestError;
  };

  it('posts container.update as {operation, options} to the container route and answers the settled operation', async () => {
    const settled = { ...OPERATION, status: 'succeeded' };
    answer = { status: 200, body: settled };
    const result = await link.request({
      method: 'container.update',
      watcher: 'local',
      operation: OPERATION,
      options: { healthTimeoutMs: 1_000 },
    });
    expect(result).toEqual(settled);
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/api/containers/c1/update?watcher=local',
        body: JSON.stringify({ operation: OPERATION, options: { healthTimeoutMs: 1_000 } }),
      },
    ]);
  });

  it("tells the agent to cancel when the caller aborts (a user's cancel), not only dropping the request", async () => {
    answer = { status: 200, body: OPERATION, delayMs: 2_000 };
    const controller = new AbortController();
    const pending = link.request(
      { method: 'container.update', watcher: 'local', operation: OPERATION, options: { healthTimeoutMs: 0 } },
      { signal: controller.signal },
    );
    await expect.poll(() => seen.length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    await expect
      .poll(() => seen.map((s) => `${s.method} ${s.url}`))
      .toContain(`POST /api/operations/${OPERATION.id}/cancel`);
  });

  it('lists images with GET /api/images and removes one with DELETE /api/images/{id} (204)', async () => {
    answer = { status: 200, body: { images: [], truncated: false } };
    expect(await link.request({ method: 'image.list', watcher: 'local' })).toEqual({ images: [], truncated: false });
    answer = { status: 204 };
    expect(await link.request({ method: 'image.remove', watcher: 'local', imageId: 'sha256:ab' })).toBeUndefined();
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/images?watcher=local',
      'DELETE /api/images/sha256%3Aab?watcher=local',
    ]);
  });

  it("takes the agent's error code from details.code, else from the status", async () => {
    const remove = { method: 'image.remove', watcher: 'local', imageId: 'sha256:ab' } as const;
    answer = { status: 409, body: { error: 'the image sha256:ab is used by web', details: { code: 'conflict' } } };
    expect(await failure(remove)).toMatchObject({
      code: 'conflict',
      message: 'agent peer: the image sha256:ab is used by web',
    });
    answer = { status: 409, body: { error: 'operation x is being recovered', details: { code: 'busy' } } };
    expect((await failure(remove)).code).toBe('busy');
    answer = { status: 409, body: { error: 'in use' } };
    expect((await failure(remove)).code).toBe('conflict');
    // An agent that predates the image routes: its 404 for an unknown route.
    answer = { status: 404, body: { error: 'No route GET /api/images' } };
    expect((await failure({ method: 'image.list', watcher: 'local' })).code).toBe('not-found');
    answer = { status: 403, body: { error: 'watcher local cannot list images', details: { code: 'unsupported' } } };
    expect((await failure({ method: 'image.list', watcher: 'local' })).code).toBe('unsupported');
  });

  it('still refuses container.remove without a call: the agent DELETE drops a record, it removes no container', async () => {
    expect((await failure({ method: 'container.remove', watcher: 'local', containerId: 'c1' })).code).toBe(
      'unsupported',
    );
    expect(seen).toEqual([]);
  });

  it('posts image.pull as {reference, auth} to POST /api/images/pull and answers the pulled image', async () => {
    const image = { id: 'sha256:ab', repoTags: ['app:2'] };
    answer = { status: 200, body: image };
    const auth = { username: 'u', password: 'p', serverAddress: 'registry.example' };
    expect(await link.request({ method: 'image.pull', watcher: 'local', reference: 'app:2', auth })).toEqual(image);
    expect(seen).toEqual([
      { method: 'POST', url: '/api/images/pull?watcher=local', body: JSON.stringify({ reference: 'app:2', auth }) },
    ]);
    // A failed pull keeps the agent's reason; its 400 for a malformed reference is `invalid`.
    answer = {
      status: 500,
      body: { error: 'the pull of app:3 failed: manifest unknown', details: { code: 'failed' } },
    };
    expect(await failure({ method: 'image.pull', watcher: 'local', reference: 'app:3' })).toMatchObject({
      code: 'failed',
      message: 'agent peer: the pull of app:3 failed: manifest unknown',
    });
    answer = { status: 400, body: { error: 'Invalid reference', details: { parameter: 'reference' } } };
    expect((await failure({ method: 'image.pull', watcher: 'local', reference: 'A B' })).code).toBe('invalid');
    // An agent that predates the route: `unsupported` naming it, not an unknown image.
    answer = { status: 404, body: { error: 'No route POST /api/images/pull' } };
    expect(await failure({ method: 'image.pull', watcher: 'local', reference: 'app:2' })).toMatchObject({
      code: 'unsupported',
      message: expect.stringContaining('agent peer predates POST /api/images/pull'),
    });
    answer = { status: 404, body: { error: 'Unknown watcher docker.local' } };
    expect((await failure({ method: 'image.pull', watcher: 'local', reference: 'app:2' })).code).toBe('not-found');
  });
});
