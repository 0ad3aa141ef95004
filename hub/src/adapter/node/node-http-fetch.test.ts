import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { asTransportError, readCapped } from '../../../../shared/registry/registry-transport';
import { createNodeHttpFetch } from './node-http-fetch';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server on port 0 answering with `handler`; resolves its base URL and the requests it saw. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void) {
  const seen: IncomingMessage[] = [];
  server = createServer((request, response) => {
    seen.push(request);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('createNodeHttpFetch (the registry fetch of dockwatch check)', () => {
  it('answers status, every header and the body as a stream, sending what fetch sends by default', async () => {
    const { base, seen } = await serve((request, response) => {
      if (request.url === '/bom') return void response.end('\uFEFF{"bom":true}');
      response.writeHead(200, 'Fine', [
        ['content-type', 'application/json'],
        ['link', '</v2/a/tags/list?last=b>; rel="next"'],
        ['x-many', 'one'],
        ['x-many', 'two'],
      ]);
      response.write('{"tags":');
      setTimeout(() => response.end('["1.0.0"]}'), 5);
    });
    const fetch = createNodeHttpFetch();
    const response = await fetch(`${base}/v2/a/tags/list?n=10`, {
      method: 'GET',
      headers: { authorization: 'Bearer t' },
      redirect: 'manual',
    });
    expect([response.status, response.ok]).toEqual([200, true]);
    expect(response.headers.get('x-many')).toBe('one, two');
    expect(response.headers.get('link')).toBe('</v2/a/tags/list?last=b>; rel="next"');
    expect(new TextDecoder().decode(await readCapped(response, 1024, 'tag list', 'a'))).toBe('{"tags":["1.0.0"]}');
    // Read once, as a Response's body is.
    await expect(response.text()).rejects.toThrow('Body is unusable');
    const again = await fetch(`${base}/v2/a/tags/list`, { method: 'GET' });
    expect(await again.json()).toEqual({ tags: ['1.0.0'] });
    const marked = await fetch(`${base}/bom`, { method: 'GET' });
    expect(await marked.json()).toEqual({ bom: true });
    expect(seen[0]?.url).toBe('/v2/a/tags/list?n=10');
    expect(seen[0]?.headers).toMatchObject({ authorization: 'Bearer t', accept: '*/*', 'user-agent': 'node' });
    expect(seen[0]?.headers['accept-encoding']).toBeUndefined();
  });

  it('gives HEAD and 204 answers no body, and a redirect as it came (the transport follows it)', async () => {
    const { base, seen } = await serve((request, response) => {
      if (request.url === '/moved') response.writeHead(307, { location: '/elsewhere' }).end('see elsewhere');
      else if (request.method === 'HEAD') response.writeHead(200, { 'docker-content-digest': 'sha256:ab' }).end();
      else response.writeHead(204).end();
    });
    const fetch = createNodeHttpFetch();
    const head = await fetch(`${base}/v2/a/manifests/1`, { method: 'HEAD', headers: { accept: 'application/x' } });
    expect([head.status, head.headers.get('docker-content-digest'), head.body]).toEqual([200, 'sha256:ab', null]);
    expect(seen[0]?.headers.accept).toBe('application/x');
    expect((await fetch(`${base}/empty`, { method: 'DELETE' })).body).toBeNull();
    const moved = await fetch(`${base}/moved`, { method: 'GET', redirect: 'manual' });
    expect([moved.status, moved.headers.get('location'), await moved.text()]).toEqual([
      307,
      '/elsewhere',
      'see elsewhere',
    ]);
    expect(seen.map((request) => request.url)).toEqual(['/v2/a/manifests/1', '/empty', '/moved']);
  });

  it("rejects with the signal's reason, before the answer and while its body stalls: a timeout as fetch gives it", async () => {
    const { base } = await serve((request, response) => {
      if (request.url === '/slow-body') response.writeHead(200).write('{"partial":');
      // Otherwise no answer at all.
    });
    const fetch = createNodeHttpFetch();
    const noAnswer = await fetch(`${base}/none`, { method: 'GET', signal: AbortSignal.timeout(50) }).catch((e) => e);
    expect(asTransportError(noAnswer, 'a', 50).kind).toBe('timeout');
    const stalled = await fetch(`${base}/slow-body`, { method: 'GET', signal: AbortSignal.timeout(100) });
    const error = await readCapped(stalled, 1024, 'body', 'a').catch((e) => e);
    expect(error).toMatchObject({ kind: 'timeout' });
    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    await expect(fetch(`${base}/none`, { method: 'GET', signal: aborted.signal })).rejects.toThrow('gone');
  });

  it('fails as fetch does when nothing listens: "fetch failed", the cause kept', async () => {
    const { base } = await serve(() => undefined);
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    const error = await createNodeHttpFetch()(`${base}/v2/`, { method: 'GET' }).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('fetch failed');
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(asTransportError(error, 'a').kind).toBe('network');
  });
});
