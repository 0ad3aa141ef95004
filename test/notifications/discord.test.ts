import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discordProvider } from '../../hub/src/notifications/providers/discord';
import { startDiscordServer } from '../support/notification-fixtures/discord-server';
import { type FixtureServer, lastAcceptedJson } from '../support/notification-fixtures/fixture-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';

const WEBHOOK = { id: '112233445566778899', token: 'Xk2-9fLmQpRsTuVwXyZaBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgHiJkLmNoPqRs' };

describe('discord', () => {
  let server: FixtureServer;
  let url: string;
  beforeAll(async () => {
    server = await startDiscordServer(WEBHOOK);
    url = `${server.url}/api/webhooks/${WEBHOOK.id}/${WEBHOOK.token}`;
  });
  afterAll(() => server.close());

  it('executes the webhook with one embed: title, description, colour, no mentions', async () => {
    const transport = buildTransport(discordProvider, {
      url,
      username: 'dockwatch',
      avatarurl: 'https://example.com/a.png',
    });
    await transport.send(sampleMessage({ event: 'update-failed', body: '@everyone web failed' }), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(`/api/webhooks/${WEBHOOK.id}/${WEBHOOK.token}`);
    expect(request?.json).toEqual({
      username: 'dockwatch',
      avatar_url: 'https://example.com/a.png',
      embeds: [{ title: 'New version for web', description: '@everyone web failed', color: 0xed4245 }],
      allowed_mentions: { parse: [] },
    });
  });

  it('cuts a title and a description to the embed limits instead of being refused', async () => {
    const transport = buildTransport(discordProvider, { url });
    await transport.send(sampleMessage({ title: 't'.repeat(300), body: 'b'.repeat(5000) }), deliveryContext());
    const embed = lastAcceptedJson<{ embeds: { title: string; description: string }[] }>(server).embeds[0];
    expect(Array.from(embed?.title ?? '')).toHaveLength(256);
    expect(Array.from(embed?.description ?? '')).toHaveLength(4096);
    expect(embed?.description.endsWith('…')).toBe(true);
  });

  it('fails a wrong webhook token for good without quoting the URL', async () => {
    const wrong = `${server.url}/api/webhooks/${WEBHOOK.id}/Wr0ngTokenWr0ngTokenWr0ngToken`;
    const error = await deliveryError(
      buildTransport(discordProvider, { url: wrong }).send(sampleMessage(), deliveryContext()),
    );
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toContain('Invalid Webhook Token');
    expectNoSecrets(error, ['Wr0ngTokenWr0ngTokenWr0ngToken', WEBHOOK.id]);
  });

  it('retries a rate limit after the time Discord names, and a 500', async () => {
    const transport = buildTransport(discordProvider, { url });
    server.answerNextWith({
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: 1.5, global: false },
    });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 1500,
    });
    server.answerNextWith({ status: 500, body: { message: '500: Internal Server Error', code: 0 } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 500,
      retryable: true,
    });
  });

  it('checks its keys; the URL is the secret', () => {
    expect(keyIssues(discordProvider, {})).toEqual({ url: 'is required' });
    expect(keyIssues(discordProvider, { url: 'discord.com/api/webhooks/1/x' })).toEqual({
      url: 'must be an http:// or https:// URL',
    });
    expect(discordProvider.secretKeys).toEqual(['url']);
  });
});
