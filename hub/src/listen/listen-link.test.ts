import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpdateOperation } from '../../../shared/update-engine';
import { EdgeRequestError } from '../agents/edge-requests';
import { ListenLink } from './listen-link';

/**
 * What a listen-mode agent's interface (http-interface §4.5) has no route for is refused by the
 * link itself, with no call to the agent. Regression (issue 15 item 8): these requests resolved
 * with nothing, so an update waited on an agent that had been asked nothing.
 */
describe('ListenLink: requests a listen-mode agent cannot serve', () => {
  let server: Server;
  const paths: string[] = [];
  let link: ListenLink;

  beforeAll(async () => {
    server = createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
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
  afterAll(async () => {
    link.close(1000, 'test over');
    await new Promise((resolve) => server.close(resolve));
  });

  const refusal = async (request: Parameters<ListenLink['request']>[0]) => {
    const error = await link.request(request).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(EdgeRequestError);
    return error as EdgeRequestError;
  };

  it('refuses container.update as unsupported, naming the agent', async () => {
    const error = await refusal({
      method: 'container.update',
      watcher: 'local',
      // Never read: the refusal comes first.
      operation: {} as UpdateOperation,
      options: { healthTimeoutMs: 1_000 },
    });
    expect(error.code).toBe('unsupported');
    expect(error.message).toBe(
      'agent peer: a listen-mode agent does not run updates (its interface has no update route)',
    );
  });

  it('refuses image.list and image.remove as unsupported', async () => {
    expect((await refusal({ method: 'image.list', watcher: 'local' })).code).toBe('unsupported');
    expect((await refusal({ method: 'image.remove', watcher: 'local', imageId: 'sha256:1' })).code).toBe('unsupported');
  });

  it('refuses image.pull as unsupported (a scan of an update candidate needs it)', async () => {
    expect((await refusal({ method: 'image.pull', watcher: 'local', reference: 'app:2' })).code).toBe('unsupported');
  });

  it('asked the agent nothing for any of them, while a stats request does reach it', async () => {
    expect(paths).toEqual([]);
    await link.request({ method: 'container.stats', watcher: 'local', containerId: 'a1' }).catch(() => undefined);
    expect(paths).toEqual(['/api/containers/a1/stats?watcher=local']);
  });
});
