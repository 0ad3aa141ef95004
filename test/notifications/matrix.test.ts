import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matrixProvider } from '../../hub/src/notifications/providers/matrix';
import { type FixtureServer, lastAcceptedJson } from '../support/notification-fixtures/fixture-server';
import { startMatrixServer } from '../support/notification-fixtures/matrix-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';

const ACCESS_TOKEN = 'syt_ZG9ja3dhdGNo_OfEhBdUJeXrZdAdGhqTq_1GmXcR';
const ROOM = '!ehXvUhWNASUkSLvAGP:example.org';

describe('matrix', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startMatrixServer(ACCESS_TOKEN, [ROOM]);
  });
  afterAll(() => server.close());

  it('PUTs an m.notice with an HTML body to the encoded room, a fresh transaction id each time', async () => {
    const transport = buildTransport(matrixProvider, { url: `${server.url}/`, token: ACCESS_TOKEN, roomid: ROOM });
    await transport.send(sampleMessage(), deliveryContext());
    await transport.send(sampleMessage(), deliveryContext());
    const [first, second] = server.accepted.slice(-2);
    expect(first?.method).toBe('PUT');
    expect(first?.path).toMatch(
      /^\/_matrix\/client\/v3\/rooms\/!ehXvUhWNASUkSLvAGP%3Aexample\.org\/send\/m\.room\.message\/dockwatch-[0-9a-f-]{36}$/,
    );
    expect(second?.path).not.toBe(first?.path);
    expect(first?.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(first?.json).toEqual({
      msgtype: 'm.notice',
      body: 'New version for web\nweb: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      format: 'org.matrix.custom.html',
      formatted_body: '<strong>New version for web</strong><br>web: nginx 1.25.3 → 1.25.4 (patch) &lt;b&gt;&amp;',
    });
  });

  it('sends m.text when asked', async () => {
    await buildTransport(matrixProvider, { url: server.url, token: ACCESS_TOKEN, roomid: ROOM, msgtype: 'text' }).send(
      sampleMessage(),
      deliveryContext(),
    );
    expect(lastAcceptedJson<{ msgtype: string }>(server).msgtype).toBe('m.text');
  });

  it('fails an unknown token (401) and a room not joined (403) for good, never quoting the token', async () => {
    const wrong = 'syt_d3Jvbmc_WrongWrongWrongWrong_000000';
    const unknown = await deliveryError(
      buildTransport(matrixProvider, { url: server.url, token: wrong, roomid: ROOM }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(unknown).toMatchObject({ status: 401, retryable: false });
    expect(unknown.message).toContain('M_UNKNOWN_TOKEN');
    expectNoSecrets(unknown, [wrong]);
    const forbidden = await deliveryError(
      buildTransport(matrixProvider, { url: server.url, token: ACCESS_TOKEN, roomid: '!other:example.org' }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(forbidden).toMatchObject({ status: 403, retryable: false });
    expect(forbidden.message).toContain('M_FORBIDDEN');
  });

  it('retries M_LIMIT_EXCEEDED after retry_after_ms, and a 500', async () => {
    const transport = buildTransport(matrixProvider, { url: server.url, token: ACCESS_TOKEN, roomid: ROOM });
    server.answerNextWith({
      status: 429,
      body: { errcode: 'M_LIMIT_EXCEEDED', error: 'Too many requests', retry_after_ms: 2500 },
    });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 2500,
    });
    server.answerNextWith({ status: 500, body: { errcode: 'M_UNKNOWN', error: 'Internal server error' } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 500,
      retryable: true,
    });
  });

  it('checks its keys', () => {
    expect(keyIssues(matrixProvider, { url: 'https://matrix.example.org', token: 't' })).toEqual({
      roomid: 'is required',
    });
    expect(
      keyIssues(matrixProvider, { url: 'https://matrix.example.org', token: 't', roomid: '#updates:example.org' }),
    ).toEqual({
      roomid: 'must be a room id starting with ! (not a #alias)',
    });
    expect(matrixProvider.secretKeys).toEqual(['token']);
  });
});
