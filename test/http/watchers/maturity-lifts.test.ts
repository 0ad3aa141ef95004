import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeWakeUp } from '../../../hub/src/hub-deps';
import {
  type EdgePeer,
  newEdgeIdentity,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  signedInPeer,
  snapshotFrames,
} from '../../support/edge-peer';
import { createServerHub, type HubClient, jsonInit } from '../../support/hub-harness';
import { type NotificationReceiver, startNotificationReceiver } from '../../support/notification-receiver';

/**
 * maturity-cleared at the moment the gate lifts (http-interface §3.3, issue 16 item 1), not at the
 * next watch cycle: a real hub on a socket, an edge agent's container whose update a one-day gate
 * holds, and a registry on loopback. The test owns the clock and the runtime's wake-up, so "a
 * day later" is one call; no watch cycle runs in between (the agent's cron is on 29 February).
 */

const DAY = 86_400_000;

/** A registry answering only what a tag check asks: the tag list of team/app. */
async function startTagRegistry(): Promise<{ host: string; server: Server }> {
  const server = createServer((req, res) => {
    const body =
      req.url === '/v2/'
        ? {}
        : req.url?.startsWith('/v2/team/app/tags/list')
          ? { name: 'team/app', tags: ['1.0.0', '1.1.0'] }
          : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { errors: [{ code: 'MANIFEST_UNKNOWN' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('maturity lifts on a real hub', () => {
  let registry: { host: string; server: Server };
  let receiver: NotificationReceiver;
  let client: HubClient;
  let peer: EdgePeer;
  let clock = Date.now();
  const wake: { delayMs: number | undefined; fire?: () => Promise<void> } = { delayMs: undefined };

  beforeAll(async () => {
    registry = await startTagRegistry();
    receiver = await startNotificationReceiver();
    client = await createServerHub(
      { DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/ops` },
      {
        now: () => clock,
        wakeUp: (fire): RuntimeWakeUp => {
          wake.fire = fire;
          return {
            async set(delayMs) {
              wake.delayMs = delayMs;
            },
          };
        },
        // The agent stays signed in across the day the test skips.
        edge: { timings: { heartbeatMs: 10 * DAY, silenceLimitMs: 30 * DAY } },
      },
    );
    const identity = await newEdgeIdentity();
    const registered = await client.request(
      '/api/v1/edge/keys',
      jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'maturity' }),
    );
    expect(registered.status).toBe(201);
    peer = await signedInPeer(client.url as string, identity, 'nas', {
      watchers: [sampleWatcher({ name: 'local', cron: '0 0 29 2 *', jitterSeconds: 0 })],
    });
  });

  afterAll(async () => {
    peer?.close();
    await client?.close();
    await receiver?.close();
    await new Promise((resolve) => registry?.server.close(resolve));
  });

  it('sends maturity-cleared when the gate lifts, from the scheduled lift, once', async () => {
    const image = `${registry.host}/team/app:1.0.0`;
    const container = sampleContainer('gated', { image });
    for (const frame of snapshotFrames('local', [container], [sampleImage({ repoTags: [image] })])) peer.send(frame);
    const watched = async () => {
      const response = await client.request(`/api/v1/containers/${container.id}/watch`, { method: 'POST' });
      return (await response.json()) as {
        updateAvailable?: boolean;
        blockers?: { reason: string; liftableAt?: string }[];
      };
    };
    // The cycle after the full sync is a job too: the test's wake-up runs it.
    await expect
      .poll(async () => {
        await wake.fire?.();
        return (await client.request(`/api/v1/containers/${container.id}`)).status;
      })
      .toBe(200);
    expect((await watched()).updateAvailable).toBe(true);
    // An update is pending; announced as update-available (no gate yet).
    await receiver.waitFor(1);

    const gated = await client.request(
      `/api/v1/containers/${container.id}/update-policy`,
      jsonInit('PATCH', { action: 'set-maturity-policy', mode: 'mature', minAgeDays: 1 }),
    );
    expect(gated.status).toBe(200);
    const held = await watched();
    const liftableAt = Date.parse(held.blockers?.find((b) => b.reason === 'maturity-not-reached')?.liftableAt ?? '');
    expect(liftableAt).toBeGreaterThan(clock);
    // The lift is a stored schedule at the gate's time, long before the agent's next cycle (29 February).
    await expect
      .poll(() => client.hub.parts.storage.getItem('schedule:maturity.lift'))
      .toMatchObject({ nextRunAt: liftableAt });

    clock = liftableAt;
    await wake.fire?.();
    const [, cleared] = await receiver.waitFor(2);
    expect(cleared?.json).toMatchObject({ event: 'maturity-cleared' });
    const audit = (await (await client.request('/api/v1/audit?action=maturity-cleared')).json()) as {
      data: { containerName: string }[];
    };
    expect(audit.data.map((entry) => entry.containerName)).toEqual(['gated']);
    const after = (await (await client.request(`/api/v1/containers/${container.id}`)).json()) as {
      blockers?: { reason: string }[];
    };
    expect(after.blockers ?? []).not.toContainEqual(expect.objectContaining({ reason: 'maturity-not-reached' }));
    // Nothing else is due: a second wake sends nothing more.
    await wake.fire?.();
    expect(receiver.received).toHaveLength(2);
  });
});
