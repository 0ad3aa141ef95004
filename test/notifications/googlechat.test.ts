import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googlechatProvider } from '../../hub/src/notifications/providers/googlechat';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import { startGoogleChatServer } from '../support/notification-fixtures/googlechat-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';

const SPACE = 'AAAAbCdEfGh';
const KEY = 'AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI';
const TOKEN = 'x5Jq8vPz2sDfGhJkLmNbVcXzAsDfGhJkL9o0i8u7y6t%3D';

describe('googlechat', () => {
  let server: FixtureServer;
  let url: string;
  beforeAll(async () => {
    server = await startGoogleChatServer(SPACE, KEY, decodeURIComponent(TOKEN));
    url = `${server.url}/v1/spaces/${SPACE}/messages?key=${KEY}&token=${TOKEN}`;
  });
  afterAll(() => server.close());

  it('posts {text} with the title in bold, as JSON in UTF-8', async () => {
    await buildTransport(googlechatProvider, { url }).send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(`/v1/spaces/${SPACE}/messages`);
    expect(request?.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(request?.json).toEqual({ text: '*New version for web*\nweb: nginx 1.25.3 → 1.25.4 (patch) <b>&' });
  });

  it('fails a wrong token for good (401) without quoting the URL, retries 429 and 500', async () => {
    const wrong = url.replace(TOKEN, 'WrongTokenWrongToken0000');
    const error = await deliveryError(
      buildTransport(googlechatProvider, { url: wrong }).send(sampleMessage(), deliveryContext()),
    );
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toContain('UNAUTHENTICATED');
    expectNoSecrets(error, ['WrongTokenWrongToken0000', KEY]);
    const transport = buildTransport(googlechatProvider, { url });
    server.answerNextWith({
      status: 429,
      body: { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } },
    });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 429,
      retryable: true,
    });
    server.answerNextWith({
      status: 500,
      body: { error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } },
    });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 500,
      retryable: true,
    });
  });

  it('fails an empty message (400) for good', async () => {
    const error = await deliveryError(
      buildTransport(googlechatProvider, { url }).send(sampleMessage({ title: '', body: '' }), deliveryContext()),
    );
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toContain('INVALID_ARGUMENT');
  });

  it('checks its keys', () => {
    expect(keyIssues(googlechatProvider, {})).toEqual({ url: 'is required' });
    expect(googlechatProvider.secretKeys).toEqual(['url']);
  });
});
