import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ntfyProvider } from '../../hub/src/notifications/providers/ntfy';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import { startNtfyServer } from '../support/notification-fixtures/ntfy-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';

const TOKEN = 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2';
const PASSWORD = 'correct horse battery';

describe('ntfy', () => {
  let withToken: FixtureServer;
  let withPassword: FixtureServer;
  beforeAll(async () => {
    [withToken, withPassword] = await Promise.all([
      startNtfyServer({ token: TOKEN }),
      startNtfyServer({ user: { name: 'phil', password: PASSWORD } }),
    ]);
  });
  afterAll(() => Promise.all([withToken.close(), withPassword.close()]));

  it('publishes JSON to the server root with the bearer token, title and options', async () => {
    const transport = buildTransport(ntfyProvider, {
      url: `${withToken.url}/`,
      topic: 'dockwatch-updates',
      token: TOKEN,
      priority: '4',
      tags: 'whale, arrow_up',
      markdown: 'true',
    });
    await transport.send(sampleMessage(), deliveryContext());
    const request = withToken.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/');
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.json).toEqual({
      topic: 'dockwatch-updates',
      title: 'New version for web',
      message: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      priority: 4,
      tags: ['whale', 'arrow_up'],
      markdown: true,
    });
  });

  it('sends Basic credentials and the Cache header', async () => {
    const transport = buildTransport(ntfyProvider, {
      url: withPassword.url,
      topic: 'alerts',
      user: 'phil',
      password: PASSWORD,
      cache: 'no',
    });
    await transport.send(sampleMessage(), deliveryContext());
    const request = withPassword.accepted.at(-1);
    expect(request?.headers.authorization).toBe(`Basic ${Buffer.from(`phil:${PASSWORD}`).toString('base64')}`);
    expect(request?.headers.cache).toBe('no');
    expect(request?.json).toEqual({
      topic: 'alerts',
      title: 'New version for web',
      message: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
    });
  });

  it('fails a wrong token for good (401), without quoting it', async () => {
    const transport = buildTransport(ntfyProvider, {
      url: withToken.url,
      topic: 'alerts',
      token: 'tk_wrongwrongwrongwrongwrong',
    });
    const error = await deliveryError(transport.send(sampleMessage(), deliveryContext()));
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toMatch(/^ntfy\.test: answered 401: .*"error":"unauthorized"/);
    expectNoSecrets(error, ['tk_wrongwrongwrongwrongwrong', 'alerts']);
  });

  it('retries a 500 and a 429, honouring Retry-After', async () => {
    const transport = buildTransport(ntfyProvider, { url: withToken.url, topic: 'alerts', token: TOKEN });
    withToken.answerNextWith({ status: 500, body: { code: 50001, http: 500, error: 'internal server error' } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 500,
      retryable: true,
    });
    withToken.answerNextWith({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { code: 42901, http: 429, error: 'limit reached' },
    });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 7000,
    });
  });

  it('checks its keys', () => {
    expect(keyIssues(ntfyProvider, {})).toEqual({ topic: 'is required' });
    expect(keyIssues(ntfyProvider, { topic: 'a b' })).toEqual({ topic: 'must be 1-64 letters, digits, _ or -' });
    expect(keyIssues(ntfyProvider, { topic: 'a', url: 'ntfy.sh' })).toEqual({
      url: 'must be an http:// or https:// URL',
    });
    expect(keyIssues(ntfyProvider, { topic: 'a', priority: '6' })).toEqual({
      priority: 'must be an integer from 1 to 5',
    });
    expect(keyIssues(ntfyProvider, { topic: 'a', user: 'phil' })).toEqual({
      password: 'USER and PASSWORD go together',
    });
    expect(keyIssues(ntfyProvider, { topic: 'a', tokne: 'x' }).tokne).toMatch(/^unknown key; known: url, topic/);
    expect(ntfyProvider.secretKeys).toEqual(['token', 'password', 'topic']);
  });
});
