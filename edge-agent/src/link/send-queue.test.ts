import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { AgentFrame } from '../../../shared/edge/protocol';
import { EdgeSender } from './send-queue';
import { realTimers } from './timers';

const delta: AgentFrame = { type: 'container.removed', watcher: 'local', containerId: 'abc' };
const bulk: AgentFrame = {
  type: 'stream',
  id: 'r1',
  lines: [{ stream: 'stdout', ts: '', line: 'x'.repeat(256 * 1024) }],
};

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A real socket pair whose server stops reading on demand: a hub that cannot keep up. */
async function slowPair(): Promise<{ client: WebSocket; request: IncomingMessage; received: () => number }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  let received = 0;
  const connected = new Promise<IncomingMessage>((resolve) =>
    server.once('connection', (socket, request) => {
      socket.on('message', () => received++);
      resolve(request);
    }),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  await new Promise((resolve) => client.once('open', resolve));
  const request = await connected;
  cleanup.push(async () => {
    client.terminate();
    for (const socket of server.clients) socket.terminate();
    await new Promise((resolve) => server.close(resolve));
  });
  return { client, request, received: () => received };
}

describe('the bounded send queue', () => {
  it('sends deltas while the hub keeps up', async () => {
    const { client, received } = await slowPair();
    let overflows = 0;
    const sender = new EdgeSender({
      socket: client,
      capBytes: 1024 * 1024,
      timers: realTimers,
      onOverflow: () => overflows++,
    });
    for (let i = 0; i < 100; i++) expect(sender.sendDelta(delta)).toBe(true);
    const deadline = Date.now() + 5_000;
    while (received() < 100 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received()).toBe(100);
    expect(overflows).toBe(0);
  });

  it('drops deltas over the cap, asks for one resync, and lets bulk senders wait until the buffer drains', async () => {
    const { client, request } = await slowPair();
    request.socket.pause();
    let overflows = 0;
    const capBytes = 512 * 1024;
    const sender = new EdgeSender({
      socket: client,
      capBytes,
      timers: realTimers,
      pollMs: 10,
      onOverflow: () => overflows++,
    });
    // Fill the kernel's buffers and then the socket's own, until it holds more than the cap.
    for (let i = 0; i < 400 && client.bufferedAmount <= capBytes; i++) {
      sender.send(bulk);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(client.bufferedAmount).toBeGreaterThan(capBytes);
    expect(sender.sendDelta(delta)).toBe(false);
    expect(sender.sendDelta(delta)).toBe(false);
    expect(overflows).toBe(1);
    expect(sender.isOverflowed).toBe(true);

    let writable = false;
    const waiting = sender.whenWritable().then(() => {
      writable = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writable).toBe(false);
    request.socket.resume();
    await waiting;
    expect(client.bufferedAmount).toBeLessThanOrEqual(capBytes / 2);
    // Still dropping until the resync that replaces the dropped deltas has begun.
    expect(sender.sendDelta(delta)).toBe(false);
    sender.clearOverflow();
    expect(sender.sendDelta(delta)).toBe(true);
    expect(overflows).toBe(1);
  });

  it('releases waiting producers when closed', async () => {
    const { client, request } = await slowPair();
    request.socket.pause();
    const sender = new EdgeSender({ socket: client, capBytes: 64 * 1024, timers: realTimers, onOverflow: () => {} });
    for (let i = 0; i < 400 && client.bufferedAmount <= 64 * 1024; i++) {
      sender.send(bulk);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const waiting = sender.whenWritable();
    sender.close();
    await waiting;
    expect(sender.send(delta)).toBe(false);
  });
});
