import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  createServerHub,
  describeHubMatrix,
  describeRuntimeMatrix,
  expectJsonError,
  type HubClient,
} from '../../support/hub-harness';

describeRuntimeMatrix('log entries', (client, mode) => {
  // The lines are logged through the hub object's logger, which is in this process only in memory
  // and on Node; under workerd the level and the refusals are checked (its start-up lines in
  // integration/workers-entry).
  const seeded = mode !== 'workerd';
  beforeAll(() => {
    if (!seeded) return;
    const logger = client().hub.parts.logger;
    logger.child('watcher.docker.local').info('watch cycle finished');
    logger.child('registry.hub').warn('rate limited');
    logger.child('registry.ghcr').error('token request failed: 401');
    logger.child('watcher.docker.local').debug('below the level: not kept');
  });

  it('reports the current level', async () => {
    expect(await (await client().request('/api/v1/log')).json()).toEqual({ level: 'info' });
  });

  it.skipIf(!seeded)('filters by minimum level, component substring, tail and since', async () => {
    const warn = await (await client().request('/api/v1/log/entries?level=warn')).json();
    expect(warn.map((entry: { msg: string }) => entry.msg)).toEqual(
      expect.arrayContaining(['rate limited', 'token request failed: 401']),
    );
    expect(warn.every((entry: { level: string }) => ['warn', 'error', 'fatal'].includes(entry.level))).toBe(true);
    const registry = await (await client().request('/api/v1/log/entries?component=registry.')).json();
    expect(registry.map((entry: { component: string }) => entry.component)).toEqual(['registry.hub', 'registry.ghcr']);
    const tail = await (await client().request('/api/v1/log/entries?tail=1')).json();
    expect(tail).toHaveLength(1);
    const all = await (await client().request('/api/v1/log/entries')).json();
    expect(all.some((entry: { msg: string }) => entry.msg.includes('below the level'))).toBe(false);
    const since = all.at(-2).timestamp;
    const later = await (await client().request(`/api/v1/log/entries?since=${since}`)).json();
    expect(later.every((entry: { timestamp: number }) => entry.timestamp > since)).toBe(true);
    for (const entry of all) expect(Object.keys(entry).sort()).toEqual(['component', 'level', 'msg', 'timestamp']);
  });

  it.skipIf(!seeded)('lists sorted unique components', async () => {
    const components = await (await client().request('/api/v1/log/components')).json();
    expect(components).toEqual([...components].sort());
    expect(components).toEqual(expect.arrayContaining(['registry.ghcr', 'registry.hub', 'watcher.docker.local']));
    expect(new Set(components).size).toBe(components.length);
  });

  it('rejects an invalid level or component with 400', async () => {
    for (const query of [
      'level=loud',
      'component=%3Cscript%3E',
      `component=${'a'.repeat(101)}`,
      'tail=-1',
      'tail=1001',
      'since=soon',
    ]) {
      await expectJsonError(await client().request(`/api/v1/log/entries?${query}`), 400);
    }
  });
});

describeHubMatrix(
  'log buffer disabled',
  (client) => {
    it('answers empty arrays for entries and components', async () => {
      client().hub.parts.logger.warn('not kept');
      expect(await (await client().request('/api/v1/log/entries')).json()).toEqual([]);
      expect(await (await client().request('/api/v1/log/components')).json()).toEqual([]);
    });
  },
  { DD_LOG_BUFFER_ENABLED: 'false' },
);

describe('log stream over a real WebSocket', () => {
  let hub: HubClient;
  beforeAll(async () => {
    hub = await createServerHub();
    hub.hub.parts.logger.child('alpha').info('old one');
    hub.hub.parts.logger.child('beta').warn('old two');
  });
  afterAll(() => hub.close());

  const wsUrl = (path: string) => `${hub.url?.replace(/^http/, 'ws')}${path}`;

  function collect(socket: WebSocket, count: number): Promise<{ msg: string; component: string; level: string }[]> {
    return new Promise((resolve, reject) => {
      const frames: { msg: string; component: string; level: string }[] = [];
      socket.on('message', (data) => {
        frames.push(JSON.parse(String(data)));
        if (frames.length === count) resolve(frames);
      });
      socket.on('error', reject);
    });
  }

  // component=a matches alpha, beta and gamma but not the hub's own start-up lines.
  it('sends the filtered backfill, then live entries', async () => {
    const socket = new WebSocket(wsUrl('/api/v1/log/stream?level=warn&component=a&tail=10'));
    const frames = collect(socket, 2);
    await new Promise((resolve) => socket.once('open', resolve));
    hub.hub.parts.logger.child('gamma').info('live but filtered out');
    hub.hub.parts.logger.child('gamma').error('live and kept');
    const received = await frames;
    expect(received.map((frame) => frame.msg)).toEqual(['old two', 'live and kept']);
    socket.close();
  });

  it('refuses a bad query, a foreign Origin and the unversioned path at upgrade', async () => {
    const statusOf = (path: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(wsUrl(path), { headers });
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('open', () => reject(new Error(`${path} was accepted`)));
        socket.on('error', () => undefined);
      });
    expect(await statusOf('/api/v1/log/stream?level=loud')).toBe(400);
    expect(await statusOf('/api/v1/log/stream', { origin: 'https://evil.example' })).toBe(403);
    expect(await statusOf('/api/log/stream')).toBe(410);
  });

  it('accepts a same-origin browser upgrade', async () => {
    const socket = new WebSocket(wsUrl('/api/v1/log/stream?tail=1'), { headers: { origin: hub.url ?? '' } });
    const [first] = await collect(socket, 1);
    expect(first?.msg).toEqual(expect.any(String));
    socket.close();
  });

  it('answers a plain GET of the stream with 426', async () => {
    await expectJsonError(await hub.request('/api/v1/log/stream'), 426);
  });
});
