import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WSContext } from 'hono/ws';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { setWsFrameLimit } from './ws-frame-limit';

const SMALL = 1024;

const contextOf = (ws: WebSocket) =>
  new WSContext({
    raw: ws,
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    readyState: 1,
  });

let server: WebSocketServer | undefined;

afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A ws server capped at SMALL bytes, as the hub's is before sign-in, and one client of it. */
async function connected(): Promise<{ client: WebSocket; socket: WebSocket }> {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1', maxPayload: SMALL });
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[WebSocket]>;
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  client.on('error', () => undefined);
  const [[socket]] = await Promise.all([accepted, once(client, 'open')]);
  socket.on('error', () => undefined);
  return { client, socket };
}

describe('setWsFrameLimit (ws internals the edge endpoint relies on)', () => {
  it('finds the per-socket cap where ws keeps it: a ws upgrade that moves it fails here', async () => {
    const { socket } = await connected();
    const receiver = (socket as unknown as { _receiver?: { _maxPayload?: unknown } })._receiver;
    expect(receiver?._maxPayload).toBe(SMALL);
  });

  it('refuses a frame over the server cap with 1009 without raising', async () => {
    const { client, socket } = await connected();
    const messages: unknown[] = [];
    socket.on('message', (data) => messages.push(data));
    client.send('x'.repeat(SMALL + 1));
    const [code] = (await once(client, 'close')) as [number];
    expect(code).toBe(1009);
    expect(messages).toEqual([]);
  });

  it('lets a raised socket receive larger frames, up to its new cap only', async () => {
    const { client, socket } = await connected();
    setWsFrameLimit(contextOf(socket), 4 * SMALL);
    const received = once(socket, 'message') as Promise<[Buffer]>;
    client.send('y'.repeat(4 * SMALL));
    const [data] = await received;
    expect(data.length).toBe(4 * SMALL);
    client.send('z'.repeat(4 * SMALL + 1));
    const [code] = (await once(client, 'close')) as [number];
    expect(code).toBe(1009);
  });

  it('throws, rather than leave the cap unchanged, on a socket without ws internals', () => {
    const fake = new WSContext({ raw: {}, send: () => undefined, close: () => undefined, readyState: 1 });
    expect(() => setWsFrameLimit(fake, SMALL)).toThrow(/_receiver\._maxPayload/);
  });
});
