import { serve } from '@hono/node-server';
import { Agent, fetch as undiciFetch } from 'undici';
import { createStorage } from 'unstorage';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dropNodeConnection, nodeClientAddress } from '../../../hub/src/adapter/node/node-connection';
import { composeHub, type Hub } from '../../../hub/src/compose-hub';
import { loadHubConfig } from '../../../hub/src/config/hub-config';
import type { UiEventStreamSettings } from '../../../hub/src/events/sse-route';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { createServerHub, describeHubMatrix, expectJsonError, type HubClient } from '../../support/hub-harness';
import { dataOf, openSse, readSse, type SseEvent, type SseStream } from '../../support/sse-client';

const PATH = '/api/v1/events/ui';
const LINGER = { timeout: 5_000 };

describeHubMatrix('UI event stream', (client) => {
  const open: SseStream[] = [];
  const bus = () => client().hub.parts.events;
  const connect = async (query = '', headers: Record<string, string> = {}) => {
    const stream = await openSse(client().request, `${PATH}${query}`, headers);
    open.push(stream);
    return stream;
  };
  const scan = (n: number) => bus().publish('dd:scan-started', { containerId: `c${n}` });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((stream) => stream.close()));
    // A disconnected client leaves no subscriber, no registered client and no slot behind.
    await vi.waitFor(() => expect(bus().subscriberCount).toBe(0), LINGER);
    expect(client().hub.parts.connectedClients.size).toBe(0);
  });

  it('opens with dd:connected carrying a client id and a token the ack route can verify', async () => {
    const stream = await connect();
    const headers = stream.response.headers;
    expect(headers.get('content-type')).toBe('text/event-stream');
    expect(headers.get('cache-control')).toBe('no-cache');
    expect(headers.get('x-accel-buffering')).toBe('no');
    const connected = await stream.next();
    const { clientId, clientToken } = dataOf<{ clientId: string; clientToken: string }>(connected);
    expect(connected.id).toBe(bus().currentId());
    expect(connected.raw).toBe(
      `id: ${connected.id}\nevent: dd:connected\ndata: ${JSON.stringify({ clientId, clientToken })}\n\n`,
    );
    const clients = client().hub.parts.connectedClients;
    expect(await clients.verify(clientId, clientToken)).toBe(true);
    expect(await clients.verify(clientId, 'forged')).toBe(false);
  });

  it('delivers published events live, in order, with ids <bootId>:<counter>', async () => {
    const stream = await connect();
    await stream.next();
    const published = [scan(1), scan(2), bus().publish('dd:agent-stats-changed', { agentName: 'edge-1' })];
    const counters = published.map((event) => event.counter);
    expect(counters).toEqual([counters[0], (counters[0] ?? 0) + 1, (counters[0] ?? 0) + 2]);
    for (const event of published) {
      const received = await stream.next();
      expect(received.id).toBe(`${client().hub.parts.bootId}:${event.counter}`);
      expect(received.raw).toBe(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
    }
  });

  it('replays exactly the missed events after Last-Event-ID; the header wins over the query parameter', async () => {
    const seen = scan(1);
    const second = scan(2);
    const third = scan(3);
    const stream = await connect(`?last-event-id=${encodeURIComponent(second.id)}`, { 'last-event-id': seen.id });
    const connected = await stream.next();
    // Frames outside the ring carry the client's own position, so a drop before the replay asks for it again.
    expect(connected).toMatchObject({ event: 'dd:connected', id: seen.id });
    expect((await stream.next()).id).toBe(second.id);
    expect((await stream.next()).id).toBe(third.id);
    const live = scan(4);
    expect((await stream.next()).id).toBe(live.id);

    const byQuery = await connect(`?last-event-id=${encodeURIComponent(third.id)}`);
    await byQuery.next();
    expect((await byQuery.next()).id).toBe(live.id);
  });

  it('answers an id older than the replay ring with dd:resync-required', async () => {
    const stale = scan(0);
    // The ring also holds at most 10,000 events; overflowing it is quicker than waiting 5 minutes.
    for (let n = 1; n <= 10_001; n++) scan(n);
    const stream = await connect('', { 'last-event-id': stale.id });
    expect((await stream.next()).event).toBe('dd:connected');
    const resync = await stream.next();
    expect(resync).toMatchObject({ event: 'dd:resync-required', id: bus().currentId() });
    expect(dataOf(resync)).toEqual({ reason: 'buffer-exceeded' });
    const live = scan(1);
    expect((await stream.next()).id).toBe(live.id);
  });

  it('answers malformed ids with a resync, and an id from before a restart with reason boot-changed', async () => {
    for (const [id, reason] of [
      ['not-an-id', 'invalid-event-id'],
      [`${client().hub.parts.bootId}:999999999`, 'invalid-event-id'],
      ['0ther000:12', 'boot-changed'],
    ]) {
      const stream = await connect('', { 'last-event-id': id as string });
      await stream.next();
      const resync = await stream.next();
      expect(resync.event, id).toBe('dd:resync-required');
      expect(dataOf(resync)).toEqual({ reason });
    }
    await expectJsonError(await client().request(`${PATH}?last-event-id=${'x'.repeat(129)}`), 400);
  });

  it('refuses an 11th stream from one address with 429 JSON and Retry-After; closing one frees its slot', async () => {
    const streams = await Promise.all(Array.from({ length: 10 }, () => connect()));
    const refused = await client().request(PATH);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = await expectJsonError(refused, 429);
    expect(body.details).toEqual({ scope: 'ip', limit: 10 });
    await streams[0]?.close();
    await vi.waitFor(() => expect(bus().subscriberCount).toBe(9), LINGER);
    const again = await connect();
    expect((await again.next()).event).toBe('dd:connected');
    if (client().mode === 'server') {
      // startNodeHub keys the cap by the real socket address: another loopback address has its own ten.
      const other = readSse(await fetchFrom(`${client().url}${PATH}`, 2));
      open.push(other);
      expect((await other.next()).event).toBe('dd:connected');
    }
  });

  it('answers HEAD with the stream headers and opens no stream', async () => {
    const response = await client().request(PATH, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(bus().subscriberCount).toBe(0);
  });
});

describe('UI event stream behind a trusted proxy [server]', () => {
  let hub: HubClient;
  beforeAll(async () => {
    hub = await createServerHub({ DD_SERVER_TRUSTPROXY: '1' });
  });
  afterAll(() => hub.close());

  it('caps streams per forwarded client address', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': `203.0.113.99, ${address}` });
    const streams = await Promise.all(
      Array.from({ length: 10 }, () => openSse(hub.request, PATH, from('198.51.100.1'))),
    );
    await expectJsonError(await hub.request(PATH, { headers: from('198.51.100.1') }), 429);
    const other = await openSse(hub.request, PATH, from('198.51.100.2'));
    expect((await other.next()).event).toBe('dd:connected');
    await Promise.all([...streams, other].map((stream) => stream.close()));
    await vi.waitFor(() => expect(hub.hub.parts.events.subscriberCount).toBe(0), LINGER);
  });
});

const agents = new Map<number, Agent>();
afterAll(() => Promise.all([...agents.values()].map((agent) => agent.close())));

/** A request from 127.0.0.<n>: on Linux every 127.0.0.0/8 address is this machine, so each is a distinct client. */
async function fetchFrom(url: string, from: number, init: RequestInit = {}): Promise<Response> {
  const agent = agents.get(from) ?? new Agent({ localAddress: `127.0.0.${from}` });
  agents.set(from, agent);
  return (await undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as Response;
}

/** A hub built with deps the standard harness does not take (stream tuning, client addresses), in memory or listening. */
interface TunedHub {
  hub: Hub;
  /** `from` picks the client address: a header the test deps read in memory, a loopback source address on a socket. */
  request(path: string, init?: RequestInit, from?: number): Promise<Response>;
  close(): Promise<void>;
}

async function startTunedHub(mode: 'memory' | 'server', uiEvents: UiEventStreamSettings): Promise<TunedHub> {
  const config = loadHubConfig({ DD_STORE_DRIVER: 'memory', DD_SERVER_HOST: '127.0.0.1' }, () => '');
  const logRing = createLogRing(100, false);
  const logger = createLogger({ level: config.log.level, ring: logRing, sink: silentSink });
  const hub = composeHub({
    config,
    storage: createStorage(),
    logger,
    logRing,
    version: '0.0.0-test',
    runtime: 'test',
    uiEvents,
    ...(mode === 'memory'
      ? { clientAddress: (c) => c.req.header('x-test-client') }
      : { clientAddress: nodeClientAddress(0), dropConnection: dropNodeConnection }),
  });
  await hub.start();
  if (mode === 'memory') {
    return {
      hub,
      request: async (path, init = {}, from = 1) => {
        const headers = new Headers(init.headers);
        headers.set('x-test-client', `client-${from}`);
        return hub.app.request(path, { ...init, headers });
      },
      close: () => hub.stop(),
    };
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const listening = serve({ fetch: hub.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(listening));
  });
  const { port } = server.address() as { port: number };
  return {
    hub,
    request: (path, init = {}, from = 1) => fetchFrom(`http://127.0.0.1:${port}${path}`, from, init),
    async close() {
      await hub.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      });
    },
  };
}

function describeTunedHub(
  name: string,
  uiEvents: UiEventStreamSettings,
  suite: (hub: () => TunedHub, mode: 'memory' | 'server') => void,
) {
  for (const mode of ['memory', 'server'] as const) {
    describe(`${name} [${mode}]`, () => {
      let tuned: TunedHub | undefined;
      beforeAll(async () => {
        tuned = await startTunedHub(mode, uiEvents);
      });
      afterAll(() => tuned?.close());
      suite(() => {
        if (!tuned) throw new Error('hub not started');
        return tuned;
      }, mode);
    });
  }
}

describeTunedHub('UI event stream heartbeats', { heartbeatMs: 60 }, (hub) => {
  it('sends dd:heartbeat {} at the configured interval, at the stream position', async () => {
    const stream = readSse(await hub().request(PATH));
    const connected = await stream.next();
    const beats = [await stream.nextOfType('dd:heartbeat'), await stream.nextOfType('dd:heartbeat')];
    expect(beats.map((beat) => [beat.id, beat.data])).toEqual([
      [connected.id, '{}'],
      [connected.id, '{}'],
    ]);
    // Timers may fire late, never early; allow a little for delivery jitter.
    expect((beats[1]?.receivedAt ?? 0) - (beats[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(45);
    const event = hub().hub.parts.events.publish('dd:preferences-updated', {});
    await stream.nextOfType('dd:preferences-updated');
    expect((await stream.nextOfType('dd:heartbeat')).id).toBe(event.id);
    await stream.close();
  });
});

describeTunedHub('UI event stream with a slow client', { queueLimit: 8, maxBuffered: 50 }, (hub) => {
  it('disconnects a client that stops reading, while the others get every event', async () => {
    const bus = hub().hub.parts.events;
    const slow = await hub().request(PATH, {}, 2);
    const fast = readSse(await hub().request(PATH, {}, 3));
    await fast.next();
    const payload = 'x'.repeat(64 * 1024);
    const ids: string[] = [];
    // A socket buffers megabytes before the stream's own queue fills; yield so the writes happen.
    for (let n = 0; n < 2_000 && bus.subscriberCount === 2; n++) {
      ids.push(bus.publish('dd:container-updated', { id: `c${n}`, payload }).id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(bus.subscriberCount).toBe(1);
    expect(hub().hub.parts.connectedClients.size).toBe(1);
    const received: string[] = [];
    while (received.length < ids.length) received.push((await fast.nextOfType('dd:container-updated')).id ?? '');
    expect(received).toEqual(ids);
    // Cut off, not ended cleanly: what it had not read is gone, and it reconnects with Last-Event-ID.
    expect(await readSse(slow).ended).toBe('error');
    await fast.close();
    await vi.waitFor(() => expect(bus.subscriberCount).toBe(0), LINGER);
  });
});

describeTunedHub('UI event stream fan-out', {}, (hub, mode) => {
  it('delivers one event to 100 clients (10 addresses × 10 streams) and refuses an 11th per address', async () => {
    const streams: SseStream[] = [];
    for (let from = 2; from <= 11; from++) {
      for (let k = 0; k < 10; k++) streams.push(await openSse((path, init) => hub().request(path, init, from), PATH));
    }
    await Promise.all(streams.map((stream) => stream.next()));
    await expectJsonError(await hub().request(PATH, {}, 5), 429);
    const started = performance.now();
    const event = hub().hub.parts.events.publish('dd:scan-started', { containerId: 'fan-out' });
    const received: SseEvent[] = await Promise.all(streams.map((stream) => stream.nextOfType('dd:scan-started')));
    const lastMs = Math.max(...received.map((frame) => frame.receivedAt)) - started;
    console.info(`ui events fan-out [${mode}]: 100 clients, last received after ${lastMs.toFixed(2)} ms`);
    expect(received.every((frame) => frame.id === event.id)).toBe(true);
    await Promise.all(streams.map((stream) => stream.close()));
    await vi.waitFor(() => expect(hub().hub.parts.events.subscriberCount).toBe(0), LINGER);
  });
});
