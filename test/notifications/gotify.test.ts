import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotifyProvider } from '../../hub/src/notifications/providers/gotify';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import { startGotifyServer } from '../support/notification-fixtures/gotify-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';

const APP_TOKEN = 'AzyoeNS.D4iJLVa';

describe('gotify', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startGotifyServer(APP_TOKEN, { basePath: '/gotify' });
  });
  afterAll(() => server.close());

  it('posts /message under the configured path, token in X-Gotify-Key, never in the URL', async () => {
    const transport = buildTransport(gotifyProvider, {
      url: `${server.url}/gotify/`,
      token: APP_TOKEN,
      priority: '8',
      markdown: 'true',
    });
    await transport.send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/gotify/message');
    expect([...(request?.query.keys() ?? [])]).toEqual([]);
    expect(request?.headers['x-gotify-key']).toBe(APP_TOKEN);
    expect(request?.json).toEqual({
      title: 'New version for web',
      message: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      priority: 8,
      extras: { 'client::display': { contentType: 'text/markdown' } },
    });
  });

  it('leaves the priority to the application and marks plain text by default', async () => {
    await buildTransport(gotifyProvider, { url: `${server.url}/gotify`, token: APP_TOKEN }).send(
      sampleMessage(),
      deliveryContext(),
    );
    expect(server.accepted.at(-1)?.json).toEqual({
      title: 'New version for web',
      message: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      extras: { 'client::display': { contentType: 'text/plain' } },
    });
  });

  it('fails a wrong token for good (401), a 400 too, and retries a 500', async () => {
    const wrong = buildTransport(gotifyProvider, { url: `${server.url}/gotify`, token: 'Wrong.Token-123' });
    const unauthorized = await deliveryError(wrong.send(sampleMessage(), deliveryContext()));
    expect(unauthorized).toMatchObject({ status: 401, retryable: false });
    expect(unauthorized.message).toContain('you need to provide a valid access token');
    expectNoSecrets(unauthorized, ['Wrong.Token-123']);

    const transport = buildTransport(gotifyProvider, { url: `${server.url}/gotify`, token: APP_TOKEN });
    const empty = await deliveryError(transport.send(sampleMessage({ body: '' }), deliveryContext()));
    expect(empty).toMatchObject({ status: 400, retryable: false });
    expect(empty.message).toContain("Field 'message' is required");

    server.answerNextWith({ status: 502, body: 'Bad Gateway' });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 502,
      retryable: true,
    });
  });

  it('checks its keys', () => {
    expect(keyIssues(gotifyProvider, { url: 'https://gotify.example.com' })).toEqual({ token: 'is required' });
    expect(keyIssues(gotifyProvider, { url: 'file:///etc/passwd', token: 'x' })).toEqual({
      url: 'must be an http:// or https:// URL',
    });
    expect(keyIssues(gotifyProvider, { url: 'https://g', token: 'x', priority: '11' })).toEqual({
      priority: 'must be an integer from 0 to 10',
    });
    expect(gotifyProvider.secretKeys).toEqual(['token']);
  });
});
