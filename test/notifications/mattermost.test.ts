import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mattermostProvider } from '../../hub/src/notifications/providers/mattermost';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import { startMattermostServer } from '../support/notification-fixtures/mattermost-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';

const HOOK = 'xi8nsgc6e7fq3q7r6rfz8ktm1h';

describe('mattermost', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startMattermostServer(HOOK, ['town-square', 'updates']);
  });
  afterAll(() => server.close());

  it('posts {text, channel, username, icon_url} with the title as a Markdown heading', async () => {
    await buildTransport(mattermostProvider, {
      url: `${server.url}/hooks/${HOOK}`,
      channel: 'updates',
      username: 'dockwatch',
      iconurl: 'https://example.com/icon.png',
    }).send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(`/hooks/${HOOK}`);
    expect(request?.json).toEqual({
      text: '#### New version for web\nweb: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      channel: 'updates',
      username: 'dockwatch',
      icon_url: 'https://example.com/icon.png',
    });
  });

  it('sends only the text when nothing is overridden', async () => {
    await buildTransport(mattermostProvider, { url: `${server.url}/hooks/${HOOK}` }).send(
      sampleMessage({ title: '' }),
      deliveryContext(),
    );
    expect(server.accepted.at(-1)?.json).toEqual({ text: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&' });
  });

  it('fails an unknown hook (400) and a locked channel (403) for good, never quoting the hook key', async () => {
    const wrong = 'zz8nsgc6e7fq3q7r6rfz8ktm1h';
    const invalid = await deliveryError(
      buildTransport(mattermostProvider, { url: `${server.url}/hooks/${wrong}` }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(invalid).toMatchObject({ status: 400, retryable: false });
    expect(invalid.message).toContain('Invalid webhook.');
    expectNoSecrets(invalid, [wrong]);
    const locked = await deliveryError(
      buildTransport(mattermostProvider, { url: `${server.url}/hooks/${HOOK}`, channel: 'secret-room' }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(locked).toMatchObject({ status: 403, retryable: false });
  });

  it('retries a 503', async () => {
    server.answerNextWith({ status: 503, body: 'Service Unavailable' });
    const error = await deliveryError(
      buildTransport(mattermostProvider, { url: `${server.url}/hooks/${HOOK}` }).send(
        sampleMessage(),
        deliveryContext(),
      ),
    );
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(error.message).toBe('mattermost.test: answered 503: Service Unavailable');
  });

  it('checks its keys', () => {
    expect(keyIssues(mattermostProvider, { channel: 'x' })).toEqual({ url: 'is required' });
    expect(keyIssues(mattermostProvider, { url: 'https://mm.example.com/hooks/x', iconurl: 'icon.png' })).toEqual({
      iconurl: 'must be an http:// or https:// URL',
    });
    expect(mattermostProvider.secretKeys).toEqual(['url']);
  });
});
