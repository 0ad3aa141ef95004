import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telegramProvider } from '../../hub/src/notifications/providers/telegram';
import { type FixtureServer, lastAcceptedJson } from '../support/notification-fixtures/fixture-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';
import { startTelegramServer } from '../support/notification-fixtures/telegram-server';

const BOT_TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

describe('telegram', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startTelegramServer(BOT_TOKEN, ['-1001234567890', '@dockwatch_updates']);
  });
  afterAll(() => server.close());

  it('calls sendMessage with the title in bold and the text escaped for HTML mode', async () => {
    await buildTransport(telegramProvider, { bottoken: BOT_TOKEN, chatid: '-1001234567890', url: server.url }).send(
      sampleMessage({ title: 'Update for <web> & co' }),
      deliveryContext(),
    );
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(request?.json).toEqual({
      chat_id: '-1001234567890',
      text: '<b>Update for &lt;web&gt; &amp; co</b>\nweb: nginx 1.25.3 → 1.25.4 (patch) &lt;b&gt;&amp;',
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    });
  });

  it('sends plain text with parse mode none, silently when asked', async () => {
    await buildTransport(telegramProvider, {
      bottoken: BOT_TOKEN,
      chatid: '@dockwatch_updates',
      url: server.url,
      parsemode: 'none',
      silent: 'true',
    }).send(sampleMessage(), deliveryContext());
    expect(server.accepted.at(-1)?.json).toEqual({
      chat_id: '@dockwatch_updates',
      text: 'New version for web\nweb: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      disable_notification: true,
      link_preview_options: { is_disabled: true },
    });
  });

  it('keeps an over-long batch message within 4096 characters', async () => {
    await buildTransport(telegramProvider, {
      bottoken: BOT_TOKEN,
      chatid: '-1001234567890',
      url: server.url,
      parsemode: 'none',
    }).send(sampleMessage({ kind: 'batch', body: 'x'.repeat(10_000) }), deliveryContext());
    expect(Array.from(lastAcceptedJson<{ text: string }>(server).text)).toHaveLength(4096);
  });

  it('fails a wrong token (401) and an unknown chat (400) for good, never quoting the token', async () => {
    const wrongToken = '987654321:WrongWrongWrongWrongWrongWrongWrong';
    const unauthorized = await deliveryError(
      buildTransport(telegramProvider, { bottoken: wrongToken, chatid: '-1001234567890', url: server.url }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(unauthorized).toMatchObject({ status: 401, retryable: false });
    expectNoSecrets(unauthorized, [wrongToken, 'WrongWrongWrongWrongWrongWrongWrong']);
    const unknownChat = await deliveryError(
      buildTransport(telegramProvider, { bottoken: BOT_TOKEN, chatid: '42', url: server.url }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(unknownChat).toMatchObject({ status: 400, retryable: false });
    expect(unknownChat.message).toContain('Bad Request: chat not found');
  });

  it('retries a 429 after parameters.retry_after, and a 500', async () => {
    const transport = buildTransport(telegramProvider, {
      bottoken: BOT_TOKEN,
      chatid: '-1001234567890',
      url: server.url,
    });
    server.answerNextWith({
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 3',
        parameters: { retry_after: 3 },
      },
    });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 3000,
    });
    server.answerNextWith({ status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error' } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 500,
      retryable: true,
    });
  });

  it('checks its keys', () => {
    expect(keyIssues(telegramProvider, { chatid: '1' })).toEqual({ bottoken: 'is required' });
    expect(keyIssues(telegramProvider, { bottoken: 'nope', chatid: '1' })).toEqual({
      bottoken: 'must be a bot token, <digits>:<characters>',
    });
    expect(keyIssues(telegramProvider, { bottoken: BOT_TOKEN, chatid: 'general' })).toEqual({
      chatid: 'must be a numeric chat id or @channelusername',
    });
    expect(keyIssues(telegramProvider, { bottoken: BOT_TOKEN, chatid: '1', parsemode: 'bbcode' })).toEqual({
      parsemode: 'must be one of html, markdownv2, markdown, none',
    });
    expect(telegramProvider.secretKeys).toEqual(['bottoken']);
  });
});
