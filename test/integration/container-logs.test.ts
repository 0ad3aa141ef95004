import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type Docker from 'dockerode';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { DockerHost } from '../../shared/docker/docker-host';
import { type ContainerLogFrame, ContainerLogFrameSchema } from '../../shared/schemas/container-log-stream';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { expectJsonError } from '../support/hub-harness';

const IMAGE = 'localtest/logs:1';
// RFC 3339 with Docker's nanoseconds, as the lines' prefix and the frames' ts.
const DOCKER_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/;
// Busybox sh runs the trap once the running usleep ends: `docker stop` then ends it cleanly.
const TICKER = 'i=0; trap "echo bye; exit 0" TERM; while :; do echo "tick $i"; i=$((i+1)); usleep 100000; done';

/** A raw HTTP GET: fetch would ask for gzip itself and hide the encoding. */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** Docker's nanosecond timestamp in Unix milliseconds. */
const msOf = (ts: string) => Date.parse(ts.replace(/(\.\d{3})\d*/, '$1'));

interface LogSocket {
  socket: WebSocket;
  frames: ContainerLogFrame[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once a frame satisfies the predicate. */
  until(predicate: (frame: ContainerLogFrame) => boolean): Promise<void>;
}

describe('container logs on a real Docker Engine', () => {
  let dockerd: TestDockerd;
  let docker: Docker;
  let hub: HubOnDockerd;
  let talker: string;
  let counter: string;

  const finished = async (name: string, script: string) => {
    const id = await runContainer(docker, { name, image: IMAGE, cmd: ['sh', '-c', script] });
    await docker.getContainer(id).wait();
    return id;
  };
  const text = async (path: string) => {
    const response = await hub.api(path);
    expect(response.status, path).toBe(200);
    return response.text();
  };

  function connect(path: string, headers: Record<string, string> = {}): LogSocket {
    const socket = new WebSocket(hub.wsUrl(path), { headers });
    const frames: ContainerLogFrame[] = [];
    const waiters: { predicate: (frame: ContainerLogFrame) => boolean; resolve: () => void }[] = [];
    socket.on('message', (data) => {
      const frame = v.parse(ContainerLogFrameSchema, JSON.parse(String(data)));
      frames.push(frame);
      for (const waiter of waiters) if (waiter.predicate(frame)) waiter.resolve();
    });
    socket.on('error', () => undefined);
    return {
      socket,
      frames,
      opened: new Promise((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('unexpected-response', (_request, response) =>
          reject(new Error(`refused with ${response.statusCode}`)),
        );
      }),
      closed: new Promise((resolve) =>
        socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
      ),
      until: (predicate) =>
        frames.some(predicate) ? Promise.resolve() : new Promise((resolve) => waiters.push({ predicate, resolve })),
    };
  }

  beforeAll(async () => {
    dockerd = await startDockerd();
    docker = dockerd.docker;
    await importBusyboxImage(docker, { repository: 'localtest/logs', tag: '1' });
    // A gap between the two pairs of lines, for `since` to fall into.
    talker = await finished('talker', 'echo out1; echo err1 >&2; usleep 300000; echo out2; echo err2 >&2');
    counter = await finished('counter', 'echo a; echo b; echo c');
    hub = await startHubOnDockerd(dockerd, { DD_WATCHER_LOCAL_WATCHALL: 'true' });
    await hub.refresh();
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.stop();
  });

  it('downloads the log as a text attachment, both streams with timestamps by default', async () => {
    const response = await hub.api(`/api/v1/containers/${talker}/logs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="talker.log"');
    const lines = (await response.text()).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => line.split(' ')[1]).sort()).toEqual(['err1', 'err2', 'out1', 'out2']);
    for (const line of lines) expect(line.split(' ')[0]).toMatch(DOCKER_TS);
  });

  it('selects streams, drops timestamps, and honours tail', async () => {
    expect(await text(`/api/v1/containers/${talker}/logs?stdout=false&timestamps=false`)).toBe('err1\nerr2\n');
    expect(await text(`/api/v1/containers/${talker}/logs?stderr=0&timestamps=false`)).toBe('out1\nout2\n');
    expect(await text(`/api/v1/containers/${counter}/logs?tail=2&timestamps=false`)).toBe('b\nc\n');
    expect(await text(`/api/v1/containers/${counter}/logs?tail=0`)).toBe('');
  });

  it('honours since as Unix seconds and as ISO 8601 alike', async () => {
    const stamped = (await text(`/api/v1/containers/${talker}/logs`)).trim().split('\n');
    const early = stamped.filter((line) => / (out1|err1)$/.test(line)).map((line) => msOf(line.split(' ')[0] ?? ''));
    const between = Math.max(...early) + 150;
    for (const since of [(between / 1000).toFixed(3), new Date(between).toISOString()]) {
      const later = await text(`/api/v1/containers/${talker}/logs?timestamps=false&since=${encodeURIComponent(since)}`);
      expect(later.trim().split('\n').sort(), since).toEqual(['err2', 'out2']);
    }
    expect(await text(`/api/v1/containers/${talker}/logs?since=${Math.ceil(Date.now() / 1000) + 60}`)).toBe('');
  });

  it('gzips the file when Accept-Encoding asks, and only then', async () => {
    const url = `${hub.url}/api/v1/containers/${talker}/logs?timestamps=false`;
    const plain = await rawGet(url);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toMatch(/^(out1|err1)\n/);
    const zipped = await rawGet(url, { 'accept-encoding': 'br, gzip' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(zipped.body).toString().split('\n').sort()).toEqual(plain.body.toString().split('\n').sort());
  });

  it('answers an unknown container with a JSON 404', async () => {
    await expectJsonError(await hub.api(`/api/v1/containers/${'0'.repeat(64)}/logs`), 404);
  });

  it('streams a finished log as {type, ts, line} frames and closes 1000 when follow=false', async () => {
    const ws = connect(`/api/v1/containers/${talker}/logs/stream?follow=false`);
    expect(await ws.closed).toEqual({ code: 1000, reason: 'end of log' });
    expect(ws.frames.map(({ type, line }) => `${type}:${line}`).sort()).toEqual([
      'stderr:err1',
      'stderr:err2',
      'stdout:out1',
      'stdout:out2',
    ]);
    for (const frame of ws.frames) expect(frame.ts).toMatch(DOCKER_TS);
    // Docker counts tail over both streams before selecting one, so tail is checked on a one-stream log.
    const last = connect(`/api/v1/containers/${counter}/logs/stream?follow=false&tail=1`);
    expect((await last.closed).code).toBe(1000);
    expect(last.frames.map((frame) => frame.line)).toEqual(['c']);
    const errors = connect(`/api/v1/containers/${talker}/logs/stream?follow=false&stdout=false`);
    expect((await errors.closed).code).toBe(1000);
    expect(errors.frames.map(({ type, line }) => `${type}:${line}`)).toEqual(['stderr:err1', 'stderr:err2']);
  });

  it('follows live lines of a running container, and closes 1000 when it stops', async () => {
    const ticker = await runContainer(docker, { name: 'ticker', image: IMAGE, cmd: ['sh', '-c', TICKER] });
    await hub.refresh();
    const ws = connect(`/api/v1/containers/${ticker}/logs/stream?tail=0`);
    await ws.opened;
    const openedAt = Date.now();
    await ws.until(() => ws.frames.length >= 3);
    // tail=0: every frame is a line written after the socket opened.
    for (const frame of ws.frames.slice(0, 3)) {
      expect(frame).toMatchObject({ type: 'stdout', line: expect.stringMatching(/^tick \d+$/) });
      expect(msOf(frame.ts)).toBeGreaterThanOrEqual(openedAt - 1_000);
    }
    await docker.getContainer(ticker).stop();
    expect(await ws.closed).toEqual({ code: 1000, reason: 'the container stopped' });
    expect(ws.frames.at(-1)?.line).toBe('bye');
  });

  it('closes 4001 when following a stopped container and 4004 for an unknown one', async () => {
    expect(await connect(`/api/v1/containers/${talker}/logs/stream`).closed).toEqual({
      code: 4001,
      reason: 'container not running',
    });
    for (const query of ['', '?follow=false']) {
      const ws = connect(`/api/v1/containers/${'0'.repeat(64)}/logs/stream${query}`);
      await ws.opened;
      expect(await ws.closed).toEqual({ code: 4004, reason: 'container not found' });
    }
  });

  it('stops reading the Docker log when the client disconnects', async () => {
    const id = await runContainer(docker, { name: 'ticker2', image: IMAGE, cmd: ['sh', '-c', TICKER] });
    await hub.refresh();
    // Observes the hub's own Docker host: the stream the route opened, and when it ends.
    const host = hub.parts.fleet.all()[0]?.host as DockerHost;
    const logs = host.logs;
    let signal: AbortSignal | undefined;
    let released!: () => void;
    const ended = new Promise<void>((resolve) => {
      released = resolve;
    });
    host.logs = (containerId, options, outer) => {
      signal = outer;
      return (async function* () {
        try {
          yield* logs.call(host, containerId, options, outer);
        } finally {
          released();
        }
      })();
    };
    try {
      const ws = connect(`/api/v1/containers/${id}/logs/stream`);
      await ws.until(() => ws.frames.length >= 2);
      ws.socket.terminate();
      await ended;
      expect(signal?.aborted).toBe(true);
    } finally {
      host.logs = logs;
    }
  });

  it('refuses a foreign Origin at upgrade', async () => {
    const ws = connect(`/api/v1/containers/${talker}/logs/stream`, { origin: 'https://evil.example' });
    await expect(ws.opened).rejects.toThrow('refused with 403');
  });
});
