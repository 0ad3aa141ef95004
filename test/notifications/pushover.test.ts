import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPushoverProvider, pushoverProvider } from '../../hub/src/notifications/providers/pushover';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';
import { startPushoverServer } from '../support/notification-fixtures/pushover-server';

const APP_TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const USER_KEY = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';

describe('pushover', () => {
  let server: FixtureServer;
  let provider: ReturnType<typeof createPushoverProvider>;
  beforeAll(async () => {
    server = await startPushoverServer(APP_TOKEN, USER_KEY);
    provider = createPushoverProvider({ apiUrl: server.url });
  });
  afterAll(() => server.close());

  it('posts the documented form fields to /1/messages.json', async () => {
    await buildTransport(provider, {
      token: APP_TOKEN,
      user: USER_KEY,
      device: 'phone,tablet',
      sound: 'pushover',
      priority: '1',
    }).send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/1/messages.json');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(request?.form ?? [])).toEqual({
      token: APP_TOKEN,
      user: USER_KEY,
      message: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      title: 'New version for web',
      device: 'phone,tablet',
      sound: 'pushover',
      priority: '1',
    });
  });

  it('adds retry and expire to an emergency-priority message, and cuts the message to 1024', async () => {
    await buildTransport(provider, { token: APP_TOKEN, user: USER_KEY, priority: '2', retry: '120' }).send(
      sampleMessage({ body: 'x'.repeat(2000) }),
      deliveryContext(),
    );
    const form = server.accepted.at(-1)?.form;
    expect(form?.get('retry')).toBe('120');
    expect(form?.get('expire')).toBe('3600');
    expect(Array.from(form?.get('message') ?? '')).toHaveLength(1024);
  });

  it('fails an invalid token or user for good (400), quoting neither', async () => {
    const error = await deliveryError(
      buildTransport(provider, { token: 'a'.repeat(30), user: USER_KEY }).send(sampleMessage(), deliveryContext()),
    );
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toContain('application token is invalid');
    expectNoSecrets(error, ['a'.repeat(30), USER_KEY]);
  });

  it('retries a 500 and a 429', async () => {
    const transport = buildTransport(provider, { token: APP_TOKEN, user: USER_KEY });
    server.answerNextWith({ status: 500, body: 'Internal Server Error' });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 500,
      retryable: true,
    });
    server.answerNextWith({ status: 429, body: { status: 0, errors: ['message limit reached'] } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 429,
      retryable: true,
    });
  });

  it('checks its keys', () => {
    expect(keyIssues(pushoverProvider, { token: APP_TOKEN })).toEqual({ user: 'is required' });
    expect(keyIssues(pushoverProvider, { token: 'short', user: USER_KEY })).toEqual({
      token: 'must be a 30-character Pushover application token',
    });
    expect(keyIssues(pushoverProvider, { token: APP_TOKEN, user: USER_KEY, priority: '3' })).toEqual({
      priority: 'must be an integer from -2 to 2',
    });
    expect(keyIssues(pushoverProvider, { token: APP_TOKEN, user: USER_KEY, retry: '600', expire: '300' })).toEqual({
      expire: 'must not be shorter than RETRY',
    });
    expect(pushoverProvider.secretKeys).toEqual(['token', 'user']);
  });
});
