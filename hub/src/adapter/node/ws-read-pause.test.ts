import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WSContext } from 'hono/ws';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { pauseWsReading } from './ws-read-pause';

let server: WebSocketServer | undefined;

afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('pauseWsReading (ws pause and resume, as an edge session behind on its frames uses them)', () => {
  it('stops the messages of a paused socket, and delivers them in order once resumed', async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(server, 'listening');
    const accepted = once(server, 'connection') as Promise<[WebSocket]>;
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const [[socket]] = await Promise.all([accepted, once(client, 'open')]);
    const context = new WSContext({ raw: socket, send: () => undefined, close: () => undefined, readyState: 1 });
    const received: string[] = [];
    socket.on('message', (data) => received.push(String(data)));

    client.send('before');
    await sleep(50);
    expect(received).toEqual(['before']);
    pauseWsReading(context, true);
    for (const text of ['one', 'two', 'three']) client.send(text);
    await sleep(150);
    expect(received).toEqual(['before']);
    pauseWsReading(context, false);
    await sleep(50);
    expect(received).toEqual(['before', 'one', 'two', 'three']);
  });

  it('throws for a socket without pause and resume (the session then closes with 1011)', () => {
    const context = new WSContext({ raw: {}, send: () => undefined, close: () => undefined, readyState: 1 });
    expect(() => pauseWsReading(context, true)).toThrow(/no pause\/resume/);
  });
});
