/**
 * Registries that do not answer: silent servers, bodies that stall after the headers, refused and
 * reset connections, garbage on the wire. Every call must end near its deadline, with a bounded
 * number of attempts (a timeout is not retried; network errors are, twice).
 */
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryError } from '../../../shared/registry/registry-error';
import { distribution, type FakeServer, hang, reply, startFakeServer } from '../../support/fixtures/fake-registry';
import { errorOf, hostileClient, SHORT_DEADLINE_MS, timed } from './hostile-helpers';

/** A raw TCP server, for answers that are not HTTP; close() destroys the sockets the client keeps open. */
async function tcpServer(
  onConnection: (socket: Socket) => void,
): Promise<{ host: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { host: `127.0.0.1:${port}`, close };
}

const CUT_SHORT = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"tags"';

describe('dead and stalling registries', () => {
  let registry: FakeServer;
  const store = distribution();
  const image = store.putImage('app', { created: '2026-01-01T00:00:00Z' }, ['1.0']);

  beforeAll(async () => {
    registry = await startFakeServer();
  });
  afterAll(() => registry.close());

  it('a server that accepts and never answers is a timeout near timeoutMs, with one attempt', async () => {
    for (const call of ['headManifest', 'getManifest', 'listTags'] as const) {
      registry.reset(hang);
      const { client, events } = hostileClient(registry.host, { timeoutMs: SHORT_DEADLINE_MS });
      const run = call === 'listTags' ? () => client.listTags('app') : () => client[call]('app', '1.0');
      const { value: error, ms } = await timed(() => errorOf(run()));
      expect({ call, kind: error.kind }).toEqual({ call, kind: 'timeout' });
      expect(ms).toBeGreaterThanOrEqual(280);
      expect(ms).toBeLessThan(800);
      // (The server may see a second, idle connection: undici's, not a retry.)
      expect([registry.requests.length, events.length]).toEqual([1, 1]);
    }
  });

  it('headers that arrive after the deadline are a timeout too', async () => {
    registry.reset((_req, res) => void setTimeout(() => reply(res, 200, { tags: [] }), 600));
    const { value: error, ms } = await timed(() =>
      errorOf(hostileClient(registry.host, { timeoutMs: SHORT_DEADLINE_MS }).client.listTags('app')),
    );
    expect(error.kind).toBe('timeout');
    expect(ms).toBeLessThan(550);
  });

  /** Sends the headers and part of the body, then nothing more. */
  function stallBody(): void {
    registry.reset((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4000' });
      res.write('{"schemaVersion":2,"tags":["a",');
    });
  }

  const stalledCalls = (client: ReturnType<typeof hostileClient>['client']) => ({
    getManifest: () => client.getManifest('app', '1.0'),
    listTags: () => client.listTags('app'),
    getImageConfig: () => client.getImageConfig('app', image.configDigest),
  });

  it('a body that stalls mid-way ends at the deadline, with one attempt (no hang)', async () => {
    for (const [call, run] of Object.entries(
      stalledCalls(hostileClient(registry.host, { timeoutMs: SHORT_DEADLINE_MS }).client),
    )) {
      stallBody();
      const { ms } = await timed(() =>
        run().then(
          () => expect.fail(`${call} succeeded`),
          () => undefined,
        ),
      );
      expect({ call, requests: registry.requests.length }).toEqual({ call, requests: 1 });
      expect(ms).toBeGreaterThanOrEqual(280);
      expect(ms).toBeLessThan(800);
    }
  });

  it('regression: errors while reading a body escape raw (DOMException TimeoutError, TypeError terminated), not as RegistryError', async () => {
    // Input A: 200 with Content-Length 4000, 31 bytes sent, then silence. Observed: the deadline's abort
    // reaches response.arrayBuffer() in readCapped and the DOMException "TimeoutError" escapes unmapped.
    // Input B: 200 with Content-Length 100, 7 bytes, then the server closes. Observed: TypeError "terminated".
    // Expected: RegistryError 'timeout' (A) and 'network' (B), for getManifest, listTags and getImageConfig alike.
    const kindOf = (error: unknown) =>
      error instanceof RegistryError ? `RegistryError ${error.kind}` : (error as Error).name;
    const observed: Record<string, string> = {};
    for (const [call, run] of Object.entries(
      stalledCalls(hostileClient(registry.host, { timeoutMs: SHORT_DEADLINE_MS }).client),
    )) {
      stallBody();
      observed[`stalled ${call}`] = await run().then(() => 'success', kindOf);
    }
    const server = await tcpServer((socket) => socket.end(CUT_SHORT));
    try {
      for (const [call, run] of Object.entries(
        stalledCalls(hostileClient(server.host, { timeoutMs: SHORT_DEADLINE_MS }).client),
      )) {
        observed[`cut short ${call}`] = await run().then(() => 'success', kindOf);
      }
    } finally {
      await server.close();
    }
    expect(observed).toEqual({
      'stalled getManifest': 'RegistryError timeout',
      'stalled listTags': 'RegistryError timeout',
      'stalled getImageConfig': 'RegistryError timeout',
      'cut short getManifest': 'RegistryError network',
      'cut short listTags': 'RegistryError network',
      'cut short getImageConfig': 'RegistryError network',
    });
  });

  it('a refused connection is a network error after maxRetries + 1 attempts', async () => {
    const closed = await startFakeServer();
    const host = closed.host;
    await closed.close();
    const { client, events } = hostileClient(host, { timeoutMs: SHORT_DEADLINE_MS });
    const { value: error, ms } = await timed(() => errorOf(client.headManifest('app', '1.0')));
    expect(error.kind).toBe('network');
    expect(events.map((e) => e.status)).toEqual(['error', 'error', 'error']);
    expect(ms).toBeGreaterThanOrEqual(740); // backoff ~250 ms, then ~500 ms
    expect(ms).toBeLessThan(2_000);
  });

  it('reset connections and garbage on the wire are network errors after three attempts', async () => {
    for (const behaviour of ['reset', 'garbage'] as const) {
      let connections = 0;
      const server = await tcpServer((socket) => {
        connections++;
        if (behaviour === 'reset') socket.resetAndDestroy();
        else socket.end('NOT HTTP AT ALL\r\n\r\n');
      });
      try {
        const error = await errorOf(
          hostileClient(server.host, { timeoutMs: SHORT_DEADLINE_MS }).client.headManifest('app', '1.0'),
        );
        expect({ behaviour, kind: error.kind, connections }).toEqual({ behaviour, kind: 'network', connections: 3 });
      } finally {
        await server.close();
      }
    }
  });

  it('a body cut short by the server closing the connection fails at once, not at the deadline', async () => {
    const server = await tcpServer((socket) => socket.end(CUT_SHORT));
    try {
      const { ms } = await timed(() =>
        hostileClient(server.host, { timeoutMs: 5_000 })
          .client.listTags('app')
          .catch(() => 'failed'),
      );
      expect(ms).toBeLessThan(500);
    } finally {
      await server.close();
    }
  });

  it('serves the stored image when the registry behaves (control for the cases above)', async () => {
    registry.reset(store.handler);
    const { client } = hostileClient(registry.host, { timeoutMs: SHORT_DEADLINE_MS });
    expect((await client.headManifest('app', '1.0')).digest).toBe(image.digest);
    expect((await client.getImageConfig('app', image.configDigest)).created).toBe('2026-01-01T00:00:00Z');
  });
});
