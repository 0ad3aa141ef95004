import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appriseProvider } from '../../hub/src/notifications/providers/apprise';
import { startAppriseServer } from '../support/notification-fixtures/apprise-server';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';

const STATELESS_URLS = 'tgram://123456789:AAHdqTcvCH1vGWJx/4242, mailto://user:s3cretpass@example.com';

describe('apprise', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startAppriseServer({ family: ['pover://user@token'], broken: ['json://fail.example.com'] });
  });
  afterAll(() => server.close());

  it('notifies a saved configuration: POST /notify/{key} with title, body, type, format and tag', async () => {
    await buildTransport(appriseProvider, {
      url: `${server.url}/`,
      key: 'family',
      tag: 'devops',
      type: 'warning',
      format: 'markdown',
    }).send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/notify/family');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.json).toEqual({
      title: 'New version for web',
      body: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      type: 'warning',
      format: 'markdown',
      tag: 'devops',
    });
  });

  it('notifies stateless URLs: POST /notify/ with urls', async () => {
    await buildTransport(appriseProvider, { url: server.url, urls: STATELESS_URLS }).send(
      sampleMessage(),
      deliveryContext(),
    );
    const request = server.accepted.at(-1);
    expect(request?.path).toBe('/notify/');
    expect(request?.json).toEqual({
      urls: STATELESS_URLS,
      title: 'New version for web',
      body: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
      type: 'info',
      format: 'text',
    });
  });

  it('treats 204 (nothing notified) as a failure for good, 424 (a service failed) and 500 as retryable', async () => {
    const unknown = await deliveryError(
      buildTransport(appriseProvider, { url: server.url, key: 'nobody' }).send(sampleMessage(), deliveryContext()),
    );
    expect(unknown).toMatchObject({ status: 204, retryable: false });
    expect(unknown.message).toContain('nothing was notified');
    const failing = await deliveryError(
      buildTransport(appriseProvider, { url: server.url, key: 'broken' }).send(sampleMessage(), deliveryContext()),
    );
    expect(failing).toMatchObject({ status: 424, retryable: true });
    const transport = buildTransport(appriseProvider, { url: server.url, urls: STATELESS_URLS });
    server.answerNextWith({ status: 500, body: `Server error while notifying ${STATELESS_URLS}` });
    const serverError = await deliveryError(transport.send(sampleMessage(), deliveryContext()));
    expect(serverError).toMatchObject({ status: 500, retryable: true });
    expectNoSecrets(serverError, ['s3cretpass', 'AAHdqTcvCH1vGWJx', STATELESS_URLS]);
  });

  it('fails a refused payload (400) for good', async () => {
    const error = await deliveryError(
      buildTransport(appriseProvider, { url: server.url, key: 'family' }).send(
        sampleMessage({ title: '', body: '' }),
        deliveryContext(),
      ),
    );
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toContain('Bad FORM Payload');
  });

  it('checks its keys: a saved key or URLs', () => {
    expect(keyIssues(appriseProvider, { url: 'http://apprise:8000' })).toEqual({
      key: 'set KEY (a saved configuration) or URLS, one of them',
    });
    expect(keyIssues(appriseProvider, { url: 'http://apprise:8000', urls: 'json://x', tag: 'devops' })).toEqual({
      tag: 'applies to a saved configuration (KEY) only',
    });
    expect(keyIssues(appriseProvider, { url: 'http://apprise:8000', key: 'a/b' })).toEqual({
      key: 'must be letters, digits, _ or -',
    });
    expect(keyIssues(appriseProvider, { url: 'http://apprise:8000', key: 'a', type: 'error' })).toEqual({
      type: 'must be one of info, success, warning, failure',
    });
    expect(appriseProvider.secretKeys).toEqual(['urls']);
  });
});
