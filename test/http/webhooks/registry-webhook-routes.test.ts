import { expect, it } from 'vitest';
import { signBody } from '../../../hub/src/webhooks/registry-signature';
import { describeRuntimeMatrix, expectJsonError } from '../../support/hub-harness';
import { metric, post, seed } from '../../support/webhook-fixtures';

/**
 * The registry webhook route without Docker: every status it documents. Containers are records put
 * in the store; their watcher is not running, so matching containers are counted, not checked
 * (against a real dockerd and registry: test/integration/registry-webhook-e2e.test.ts). What both
 * webhook families share (disabled, missing token or secret, rate limits) is in
 * ./action-webhook-routes.test.ts.
 */

const SECRET = 'registry-hmac-secret';

describeRuntimeMatrix(
  'registry webhook',
  (client, mode) => {
    const envelope = (host: string, repository: string, tag: string) =>
      JSON.stringify({
        events: [
          {
            action: 'pull',
            target: { repository, tag, mediaType: 'application/vnd.oci.image.index.v1+json' },
            request: { host },
          },
          {
            action: 'push',
            target: { repository, tag, mediaType: 'application/vnd.oci.image.index.v1+json' },
            request: { host },
          },
        ],
      });
    const send = async (body: string, headers: Record<string, string>) =>
      client().request(
        '/api/v1/webhooks/registry',
        post({ 'content-type': 'application/vnd.docker.distribution.events.v1+json', ...headers }, body),
      );

    // The records are put into the hub object's container store, which is in this process only in
    // memory and on Node; under workerd only the cases that need no seeded container run.
    it.skipIf(mode === 'workerd')('seeds the records', async () => {
      await seed(client());
    });

    it('answers 401 without a signature and with a wrong one', async () => {
      const body = envelope('127.0.0.1:5000', 'team/app', '2.0.0');
      const missing = await expectJsonError(await send(body, {}), 401);
      expect(missing.error).toContain('x-hub-signature-256');
      await expectJsonError(await send(body, { 'x-hub-signature-256': await signBody('another-secret', body) }), 401);
      // Signed, then changed by one byte on the way: the signature covers the exact bytes.
      await expectJsonError(await send(`${body} `, { 'x-hub-signature-256': await signBody(SECRET, body) }), 401);
    });

    it('accepts the signature in each of the six headers, as sha256=<hex> or bare hex', async () => {
      const body = envelope('ghcr.io', 'nobody/nothing', '1.0.0');
      const signed = await signBody(SECRET, body);
      const headers = [
        'x-drydock-signature',
        'x-hub-signature-256',
        'x-quay-signature',
        'x-harbor-signature',
        'x-ms-signature',
        'x-registry-signature',
      ];
      for (const [index, header] of headers.entries()) {
        const value = index % 2 === 0 ? signed : signed.slice('sha256='.length);
        const response = await send(body, { [header]: value });
        expect(response.status).toBe(202);
        expect(await response.json()).toMatchObject({
          format: 'distribution',
          received: 1,
          ignored: 1,
          matched: 0,
          dispatched: 0,
        });
      }
    });

    it('answers 400 for a signed body that is not JSON or not a known format', async () => {
      await expectJsonError(
        await send('not json', { 'x-registry-signature': await signBody(SECRET, 'not json') }),
        400,
      );
      const odd = JSON.stringify({ hello: 'world' });
      const unknown = await expectJsonError(
        await send(odd, { 'x-registry-signature': await signBody(SECRET, odd) }),
        400,
      );
      expect(unknown.details?.formats).toEqual(['distribution', 'acr', 'docker-hub', 'harbor', 'quay', 'ghcr']);
    });

    // Needs the seeded records (above).
    it.skipIf(mode === 'workerd')(
      'answers 202 with dispatch counts: matching containers whose watcher is unavailable are counted, not checked',
      async () => {
        const body = envelope('127.0.0.1:5000', 'team/app', '2.0.0');
        const response = await send(body, { 'x-drydock-signature': await signBody(SECRET, body) });
        expect(response.status).toBe(202);
        expect(await response.json()).toEqual({
          message: 'Checking 0 containers',
          format: 'distribution',
          received: 1,
          ignored: 1,
          matched: 2,
          dispatched: 0,
          queued: 0,
          unavailable: 2,
          images: ['127.0.0.1:5000/team/app:2.0.0'],
        });
        expect(await metric(client(), /^dd_webhook_total\{action="registry"\}/)).toMatch(/ [1-9]\d*$/);
      },
    );
  },
  { DD_SERVER_WEBHOOK_ENABLED: 'true', DD_SERVER_WEBHOOK_SECRET: SECRET },
);
