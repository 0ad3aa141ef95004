import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rocketchatProvider } from '../../hub/src/notifications/providers/rocketchat';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';
import { startRocketChatServer } from '../support/notification-fixtures/rocketchat-server';

const HOOK = { id: 'Gh7Tq2Xk9LmWp3Rz', token: 'bXk4PqR7sT2vW9yZ1aC3dE5fG7hJ9kL2mN4pQ6rS8tV0' };
const USER = { id: 'aobEdbYhXfu5hkeqG', token: '9HqLlyZOugoStsXCUfD_0YdwnNnunAJF8V47U3QHXSq' };

describe('rocketchat', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startRocketChatServer({ hook: HOOK, user: USER, channels: ['#general', '#updates'] });
  });
  afterAll(() => server.close());

  it('posts to an incoming webhook: {text, alias, emoji, channel}', async () => {
    await buildTransport(rocketchatProvider, {
      url: `${server.url}/hooks/${HOOK.id}/${HOOK.token}`,
      channel: '#updates',
      alias: 'dockwatch',
      emoji: ':whale:',
    }).send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(`/hooks/${HOOK.id}/${HOOK.token}`);
    expect(request?.headers['x-auth-token']).toBeUndefined();
    expect(request?.json).toEqual({
      text: '*New version for web*\nweb: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      channel: '#updates',
      alias: 'dockwatch',
      emoji: ':whale:',
    });
  });

  it('posts chat.postMessage with X-Auth-Token and X-User-Id', async () => {
    await buildTransport(rocketchatProvider, {
      url: `${server.url}/`,
      userid: USER.id,
      token: USER.token,
      channel: '#general',
    }).send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.path).toBe('/api/v1/chat.postMessage');
    expect(request?.headers['x-auth-token']).toBe(USER.token);
    expect(request?.headers['x-user-id']).toBe(USER.id);
    expect(request?.json).toEqual({
      text: '*New version for web*\nweb: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      channel: '#general',
    });
  });

  it('fails wrong credentials (401), an unknown channel (400) and an unknown hook (404) for good', async () => {
    const wrongToken = 'WrongTokenWrongTokenWrongToken000';
    const unauthorized = await deliveryError(
      buildTransport(rocketchatProvider, {
        url: server.url,
        userid: USER.id,
        token: wrongToken,
        channel: '#general',
      }).send(sampleMessage(), deliveryContext()),
    );
    expect(unauthorized).toMatchObject({ status: 401, retryable: false });
    expect(unauthorized.message).toContain('You must be logged in to do this.');
    expectNoSecrets(unauthorized, [wrongToken]);
    const unknownChannel = await deliveryError(
      buildTransport(rocketchatProvider, {
        url: server.url,
        userid: USER.id,
        token: USER.token,
        channel: '#nowhere',
      }).send(sampleMessage(), deliveryContext()),
    );
    expect(unknownChannel).toMatchObject({ status: 400, retryable: false });
    expect(unknownChannel.message).toContain('[invalid-channel]');
    const wrongHook = `${server.url}/hooks/${HOOK.id}/WrongHookTokenWrongHookToken`;
    const unknownHook = await deliveryError(
      buildTransport(rocketchatProvider, { url: wrongHook }).send(sampleMessage(), deliveryContext()),
    );
    expect(unknownHook).toMatchObject({ status: 404, retryable: false });
    expectNoSecrets(unknownHook, ['WrongHookTokenWrongHookToken', HOOK.id]);
  });

  it('fails a 200 without success for good, retries a 500', async () => {
    const transport = buildTransport(rocketchatProvider, { url: `${server.url}/hooks/${HOOK.id}/${HOOK.token}` });
    server.answerNextWith({ status: 200, body: { success: false, error: 'error-invalid-room' } });
    const refused = await deliveryError(transport.send(sampleMessage(), deliveryContext()));
    expect(refused).toMatchObject({ status: 200, retryable: false });
    expect(refused.message).toContain('error-invalid-room');
    server.answerNextWith({ status: 500, body: { success: false, error: 'Internal server error' } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 500,
      retryable: true,
    });
  });

  it('checks its keys', () => {
    expect(keyIssues(rocketchatProvider, {})).toEqual({ url: 'is required' });
    expect(keyIssues(rocketchatProvider, { url: 'https://chat.example.com', userid: 'u' })).toEqual({
      token: 'USERID and TOKEN go together',
    });
    expect(keyIssues(rocketchatProvider, { url: 'https://chat.example.com', userid: 'u', token: 't' })).toEqual({
      channel: 'is required with USERID and TOKEN',
    });
    expect(keyIssues(rocketchatProvider, { url: 'https://chat.example.com/hooks/a/b', emoji: 'whale' })).toEqual({
      emoji: 'must be an emoji like :ship:',
    });
    expect(rocketchatProvider.secretKeys).toEqual(['url', 'token']);
  });
});
