/**
 * What the hub decides about edge agents' updates by itself: a request that never reached the agent
 * (the link dropped first) must not hold the container locked forever, and the agent's own container
 * and its socket proxy are never updated through it. The hub is real and listening; the agent is a
 * scripted edge/1.0 peer (test/support/edge-peer.ts), so the test decides exactly which frames the
 * agent sends. The updates themselves run on real agents in test/integration/edge-update*.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerContainerDetails } from '../../../shared/docker/docker-host';
import type { AgentInfo } from '../../../shared/edge/protocol';
import type { Container } from '../../../shared/schemas/container';
import {
  type EdgeIdentity,
  type EdgePeer,
  newEdgeIdentity,
  sampleAgentInfo,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  signedInPeer,
  snapshotFrames,
  waitFor,
} from '../../support/edge-peer';
import { createServerHub, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';

// The scripted peer answers no pings: heartbeats far apart keep its sessions open for the test.
const TIMINGS = { heartbeatMs: 10_000, silenceLimitMs: 30_000, signInDeadlineMs: 5_000, requestTimeoutMs: 5_000 };
// A closed loopback port: the registry check fails at once and never leaves the machine.
const IMAGE = '127.0.0.1:9/team/app:1.0.0';
const AGENT = 'far-host';

describe("edge agents' updates, decided by the hub", () => {
  let client: HubClient;
  let identity: EdgeIdentity;
  const web = sampleContainer('web', { image: IMAGE });

  /** Signs in as the agent and sends its inventory, reporting no operation. */
  async function agentBack(
    syncId: string,
    as: { name?: string; containers?: DockerContainerDetails[]; info?: Partial<AgentInfo>; endpoint?: string } = {},
  ): Promise<EdgePeer> {
    const watcher = sampleWatcher(as.endpoint === undefined ? {} : { endpoint: as.endpoint });
    const peer = await signedInPeer(client.url as string, identity, as.name ?? AGENT, {
      watchers: [watcher],
      agent: sampleAgentInfo(as.info),
    });
    const image = sampleImage({ id: web.imageId, repoTags: [IMAGE] });
    for (const frame of snapshotFrames(watcher.name, as.containers ?? [web], [image], { syncId })) peer.send(frame);
    return peer;
  }

  /** The hub's record of the agent's container, with 2.0.0 pending (no registry runs here to find it). */
  async function markPending(name = 'web', agent = AGENT): Promise<Container> {
    const record = await waitFor(
      () => client.hub.parts.containers.all().find((c) => c.name === name && c.agent === agent),
      5_000,
    );
    const pending: Container = {
      ...record,
      updateAvailable: true,
      updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
      result: { tag: '2.0.0' },
    };
    await client.hub.parts.containers.put(pending);
    return pending;
  }

  beforeAll(async () => {
    client = await createServerHub({ DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' }, { edge: { timings: TIMINGS } });
    identity = await newEdgeIdentity();
    const registered = await client.request(
      '/api/v1/edge/keys',
      jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'far' }),
    );
    expect(registered.status).toBe(201);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('settles it failed once the agent is back without it, and the container can be updated again', async () => {
    const first = await agentBack('sync-1');
    const record = await markPending();
    const accepted = await client.request(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
    expect(accepted.status).toBe(202);
    const { operationId } = (await accepted.json()) as { operationId: string };
    const request = await first.next('request');
    expect(request.request).toMatchObject({ method: 'container.update', operation: { id: operationId } });
    // The link drops before the agent took the request in: it never journals or reports it.
    first.ws.terminate();
    await first.closed;
    const operation = () => client.hub.parts.updates.get(operationId);
    expect(operation()?.status).toBe('queued');

    const second = await agentBack('sync-2');
    const settled = await waitFor(() => {
      const now = operation();
      return now && now.status !== 'queued' ? now : undefined;
    }, 5_000);
    expect(settled).toMatchObject({ status: 'failed', phase: 'prepare' });
    expect(settled.lastError).toContain('never received the update');
    expect(settled.lastError).toContain('nothing was changed');

    // The lock is gone: a new request goes out to the agent.
    await markPending();
    const again = await client.request(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
    expect(again.status).toBe(202);
    expect((await second.next('request')).request).toMatchObject({ method: 'container.update' });
    second.ws.terminate();
  });

  it('refuses the container the agent runs in and the socket proxy its watcher names (409 hub-lifeline)', async () => {
    const own = sampleContainer('dockwatch-agent', { image: IMAGE });
    const proxy = sampleContainer('socket-proxy', { image: IMAGE });
    const app = sampleContainer('app', { image: IMAGE });
    const peer = await agentBack('sync-boxed', {
      name: 'boxed',
      containers: [own, proxy, app],
      info: { containerId: own.id },
      endpoint: 'tcp://socket-proxy:2375',
    });
    const update = async (name: string) =>
      client.request(`/api/v1/containers/${(await markPending(name, 'boxed')).id}/update`, { method: 'POST' });
    const ownRefusal = await expectJsonError(await update('dockwatch-agent'), 409);
    expect(ownRefusal).toMatchObject({ details: { reason: 'hub-lifeline' } });
    expect(ownRefusal.error).toContain('the edge agent boxed runs in dockwatch-agent');
    const proxyRefusal = await expectJsonError(await update('socket-proxy'), 409);
    expect(proxyRefusal.error).toContain('reaches this Docker through socket-proxy (http://socket-proxy:2375)');
    const preview = (await (
      await client.request(`/api/v1/containers/${own.id}/preview`, { method: 'POST' })
    ).json()) as {
      canUpdate: boolean;
      blockers: { reason: string }[];
    };
    expect(preview.canUpdate).toBe(false);
    expect(preview.blockers.map((blocker) => blocker.reason)).toContain('hub-lifeline');
    expect(client.hub.parts.updates.unsettled().filter((operation) => operation.agent === 'boxed')).toEqual([]);
    // Any other container of the agent is updated through it as usual.
    expect((await update('app')).status).toBe(202);
    expect((await peer.next('request')).request).toMatchObject({
      method: 'container.update',
      operation: { containerName: 'app' },
    });
    peer.ws.terminate();
  });
});
