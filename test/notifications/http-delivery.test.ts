import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverHttp, excerptOf, retryAfter } from '../../hub/src/notifications/providers/http-delivery';
import { secretFragments } from '../../hub/src/notifications/providers/secret-fragments';
import { type FixtureServer, startFixtureServer } from '../support/notification-fixtures/fixture-server';
import { deliveryContext, deliveryError } from '../support/notification-fixtures/provider-harness';

const target = {
  component: 'test.one',
  secrets: secretFragments(['https://hooks.example.com/services/T0001/B0002/s3cr3tS3cr3tS3cr3t?token=qwerty123']),
};

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('deliverHttp', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer((request) => {
      if (request.path === '/moved') return { status: 301, headers: { location: '/followed' } };
      if (request.path === '/huge') return { status: 400, body: `${'x'.repeat(100_000)}` };
      if (request.path === '/echo')
        return { status: 404, body: `no webhook T0001/B0002/s3cr3tS3cr3tS3cr3t (token qwerty123)\n\n  here` };
      return { status: 204 };
    });
  });
  afterAll(() => server.close());

  it('gives up at the delivery timeout with a retryable error', async () => {
    server.stall = true;
    try {
      const error = await deliveryError(
        deliverHttp(deliveryContext(200), target, { url: `${server.url}/hook`, json: {} }),
      );
      expect(error).toMatchObject({ retryable: true, status: undefined });
      expect(error.message).toBe('test.one: no answer before the delivery timeout');
    } finally {
      server.stall = false;
    }
  });

  it('reports a refused connection as retryable, naming the cause', async () => {
    const port = await closedPort();
    const error = await deliveryError(
      deliverHttp(deliveryContext(), target, { url: `http://127.0.0.1:${port}/hook`, json: {} }),
    );
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/^test\.one: request failed: .*ECONNREFUSED/);
  });

  it('does not follow a redirect: the webhook moved, which no retry fixes', async () => {
    const error = await deliveryError(deliverHttp(deliveryContext(), target, { url: `${server.url}/moved`, json: {} }));
    expect(error).toMatchObject({ status: 301, retryable: false });
    expect(error.message).toBe('test.one: answered 301 (a redirect: configure the final URL)');
    expect(server.requests.filter((request) => request.path === '/followed')).toHaveLength(0);
  });

  it('quotes a short, flattened, secret-free excerpt of the answer', async () => {
    const huge = await deliveryError(deliverHttp(deliveryContext(), target, { url: `${server.url}/huge`, json: {} }));
    expect(huge.message.length).toBeLessThan(400);
    const echo = await deliveryError(deliverHttp(deliveryContext(), target, { url: `${server.url}/echo`, json: {} }));
    expect(echo.message).toBe('test.one: answered 404: no webhook T0001/B0002/*** (token ***) here');
  });

  it('returns a 2xx answer', async () => {
    expect(await deliverHttp(deliveryContext(), target, { url: `${server.url}/ok`, json: { a: 1 } })).toEqual({
      status: 204,
      text: '',
    });
  });
});

describe('retryAfter and excerpts', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2024-05-01T10:00:00Z');
    expect(retryAfter('120', now)).toBe(120_000);
    expect(retryAfter('Wed, 01 May 2024 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfter('Wed, 01 May 2024 09:00:00 GMT', now)).toBe(0);
    expect(retryAfter('soon', now)).toBeUndefined();
    expect(retryAfter(null, now)).toBeUndefined();
  });

  it('hides the generated parts of a secret URL but not the words of its path', () => {
    const fragments = secretFragments([
      'https://discord.com/api/webhooks/112233445566778899/AbCdEfGh-IjKlMnOp_QrStUvWx',
    ]);
    expect(excerptOf('Unknown webhook 112233445566778899 on /api/webhooks/', fragments)).toBe(
      'Unknown webhook *** on /api/webhooks/',
    );
    expect(excerptOf('token AbCdEfGh-IjKlMnOp_QrStUvWx refused', fragments)).toBe('token *** refused');
  });
});
