import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamsProvider } from '../../hub/src/notifications/providers/teams';
import type { FixtureServer } from '../support/notification-fixtures/fixture-server';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';
import { startTeamsServer } from '../support/notification-fixtures/teams-server';

const WORKFLOW = '8a1c7f0e2b3d4c5e6f7a8b9c0d1e2f3a';
const SIGNATURE = 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa987654';

describe('teams', () => {
  let server: FixtureServer;
  let url: string;
  beforeAll(async () => {
    server = await startTeamsServer(WORKFLOW, SIGNATURE);
    url = `${server.url}/workflows/${WORKFLOW}/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${SIGNATURE}`;
  });
  afterAll(() => server.close());

  it('posts a message with one Adaptive Card: the title as a bold block, the body wrapped', async () => {
    await buildTransport(teamsProvider, { url }).send(sampleMessage(), deliveryContext());
    const request = server.accepted.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.query.get('sig')).toBe(SIGNATURE);
    expect(request?.json).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.2',
            body: [
              { type: 'TextBlock', text: 'New version for web', weight: 'Bolder', size: 'Medium', wrap: true },
              { type: 'TextBlock', text: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&', wrap: true },
            ],
            msteams: { width: 'Full' },
          },
        },
      ],
    });
  });

  it('fails a wrong signature for good (401) without quoting the URL, retries a 502 and a 429', async () => {
    const wrongSig = 'WrongSignatureWrongSignature0000';
    const error = await deliveryError(
      buildTransport(teamsProvider, { url: url.replace(SIGNATURE, wrongSig) }).send(sampleMessage(), deliveryContext()),
    );
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toContain('DirectApiAuthorizationRequired');
    expectNoSecrets(error, [wrongSig, WORKFLOW]);
    const transport = buildTransport(teamsProvider, { url });
    server.answerNextWith({ status: 502, body: { error: { code: 'BadGateway', message: 'upstream failed' } } });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 502,
      retryable: true,
    });
    server.answerNextWith({
      status: 429,
      headers: { 'retry-after': '12' },
      body: { error: { code: 'WorkflowTriggerIsThrottled', message: 'slow down' } },
    });
    expect(await deliveryError(transport.send(sampleMessage(), deliveryContext()))).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 12_000,
    });
  });

  it('checks its keys', () => {
    expect(keyIssues(teamsProvider, {})).toEqual({ url: 'is required' });
    expect(keyIssues(teamsProvider, { url: 'prod-00.westus.logic.azure.com/workflows/x' })).toEqual({
      url: 'must be an http:// or https:// URL',
    });
    expect(teamsProvider.secretKeys).toEqual(['url']);
  });
});
