import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackProvider, slackProvider } from '../../hub/src/notifications/providers/slack';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';
import { startSlackServer } from '../support/notification-fixtures/slack-server';

const WEBHOOK_PATH = '/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';
const BOT_TOKEN = 'xoxb-1111111111-2222222222222-AbCdEfGhIjKlMnOpQrStUvWx';

const EXPECTED_BLOCKS = [
  { type: 'header', text: { type: 'plain_text', text: 'New version for web', emoji: true } },
  { type: 'section', text: { type: 'mrkdwn', text: 'web: nginx 1.25.3 → 1.25.4 (patch) &lt;b&gt;&amp;' } },
];

describe('slack', () => {
  let server: FixtureServer;
  let bot: ReturnType<typeof createSlackProvider>;
  beforeAll(async () => {
    server = await startSlackServer({ webhookPath: WEBHOOK_PATH, botToken: BOT_TOKEN, channels: ['C0123456789'] });
    bot = createSlackProvider({ apiUrl: `${server.url}/api` });
  });
  afterAll(() => server.close());

  it('posts to an incoming webhook: a header block, a mrkdwn section and the fallback text', async () => {
    await buildTransport(slackProvider, { url: `${server.url}${WEBHOOK_PATH}` }).send(
      sampleMessage(),
      deliveryContext(),
    );
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(WEBHOOK_PATH);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.json).toEqual({
      text: 'New version for web\nweb: nginx 1.25.3 → 1.25.4 (patch) &lt;b&gt;&amp;',
      blocks: EXPECTED_BLOCKS,
    });
  });

  it('posts chat.postMessage with the bot token as a bearer', async () => {
    await buildTransport(bot, { token: BOT_TOKEN, channel: 'C0123456789' }).send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.path).toBe('/api/chat.postMessage');
    expect(request?.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(request?.json).toEqual({
      channel: 'C0123456789',
      text: 'New version for web\nweb: nginx 1.25.3 → 1.25.4 (patch) &lt;b&gt;&amp;',
      blocks: EXPECTED_BLOCKS,
    });
  });

  it('fails a Web API error reported inside a 200 for good, and retries a transient one', async () => {
    const wrongToken = await deliveryError(
      buildTransport(bot, { token: 'xoxb-0000000000-0000000000000-WrongWrongWrong', channel: 'C0123456789' }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(wrongToken).toMatchObject({ status: 200, retryable: false });
    expect(wrongToken.message).toBe('slack.test: answered 200: error: invalid_auth');
    expectNoSecrets(wrongToken, ['xoxb-0000000000-0000000000000-WrongWrongWrong']);

    const transport = buildTransport(bot, { token: BOT_TOKEN, channel: 'C0123456789' });
    server.answerNextWith({ status: 200, body: { ok: false, error: 'service_unavailable' } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({ retryable: true });
    server.answerNextWith({ status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 30_000,
    });
    const notInChannel = await deliveryError(
      buildTransport(bot, { token: BOT_TOKEN, channel: 'C999' }).send(sampleMessage(), deliveryContext()),
    );
    expect(notInChannel.message).toBe('slack.test: answered 200: error: not_in_channel');
  });

  it('fails a wrong webhook for good (403 invalid_token) without quoting it, retries a 500', async () => {
    const wrong = `${server.url}/services/T00000000/B00000000/YYYYYYYYYYYYYYYYYYYYYYYY`;
    const error = await deliveryError(
      buildTransport(slackProvider, { url: wrong }).send(sampleMessage(), deliveryContext()),
    );
    expect(error).toMatchObject({ status: 403, retryable: false });
    expect(error.message).toBe('slack.test: answered 403: invalid_token');
    expectNoSecrets(error, ['YYYYYYYYYYYYYYYYYYYYYYYY']);
    server.answerNextWith({ status: 500, body: 'rollup_error' });
    const transport = buildTransport(slackProvider, { url: `${server.url}${WEBHOOK_PATH}` });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 500,
      retryable: true,
    });
  });

  it('checks its keys: a webhook or a bot token with its channel', () => {
    expect(keyIssues(slackProvider, {})).toEqual({ url: 'set URL (a webhook) or TOKEN (a bot), one of them' });
    expect(keyIssues(slackProvider, { url: 'https://hooks.slack.com/services/x', token: 'xoxb-1' })).toHaveProperty(
      'url',
    );
    expect(keyIssues(slackProvider, { token: 'xoxb-1' })).toEqual({ channel: 'is required with TOKEN' });
    expect(keyIssues(slackProvider, { url: 'hooks.slack.com' })).toEqual({ url: 'must be an http:// or https:// URL' });
    expect(slackProvider.secretKeys).toEqual(['url', 'token']);
  });
});
