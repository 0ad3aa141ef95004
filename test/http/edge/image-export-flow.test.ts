/**
 * `image.export` flow control (docs/edge-protocol.md "Image export") with the real code of both
 * ends joined in memory: the hub's request correlation and EdgeDockerHost reading the export, the
 * agent's request handler (SessionRequests) streaming it from a Docker host that counts what was
 * read of it. Every frame crosses as JSON text and is validated with the shared schemas, as on the
 * wire. The hub's reader is slow on purpose: the agent must never run ahead of the hub's credit, and
 * its Docker read must wait with it.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { WatcherRuntime } from '../../../edge-agent/src/feed/watcher-runtime';
import { EdgeSender } from '../../../edge-agent/src/link/send-queue';
import { realTimers } from '../../../edge-agent/src/link/timers';
import { SessionRequests } from '../../../edge-agent/src/requests/session-requests';
import { ChunkQueue } from '../../../hub/src/agents/chunk-queue';
import { EdgeDockerHost, EXPORT_WINDOW_CHUNKS } from '../../../hub/src/agents/edge-docker-host';
import { PendingRequests } from '../../../hub/src/agents/edge-requests';
import { type DockerHost, DockerNotFoundError } from '../../../shared/docker/docker-host';
import {
  type AgentFrame,
  AgentFrameSchema,
  EDGE_EXPORT_CHUNK_BYTES,
  type HubFrame,
  HubFrameSchema,
} from '../../../shared/edge/protocol';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger } from '../../../shared/logging/logger';

const PIECE = 64 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An image of `size` bytes (a byte pattern), handed out in 64 KiB pieces as the Engine's stream does. */
class CountingHost {
  readonly endpoint = 'unix:///counting.sock';
  /** Bytes the agent pulled out of the "Engine" so far. */
  read = 0;
  /** The stream was ended (finished, or stopped by a cancel). */
  closed = false;
  constructor(readonly size: number) {}

  async *exportImage(imageId: string, signal: AbortSignal): AsyncGenerator<Uint8Array> {
    if (imageId !== 'sha256:known') throw new DockerNotFoundError(`image ${imageId}`);
    try {
      for (let offset = 0; offset < this.size && !signal.aborted; offset += PIECE) {
        const piece = new Uint8Array(Math.min(PIECE, this.size - offset));
        for (let i = 0; i < piece.length; i++) piece[i] = (offset + i) % 251;
        this.read += piece.length;
        yield piece;
      }
    } finally {
      this.closed = true;
    }
  }
}

/** The hub and the agent joined by two in-memory "sockets" that carry JSON text and check every frame. */
function joined(docker: CountingHost) {
  const stats = { chunksSent: 0, granted: 0, creditFrames: 0, maxAhead: 0, taken: 0 };
  const refusals: string[] = [];
  let agent: SessionRequests;
  const hub = new PendingRequests((frame) => {
    const text = JSON.stringify(frame);
    queueMicrotask(() => {
      const parsed = v.parse(HubFrameSchema, JSON.parse(text)) as HubFrame;
      if (parsed.type === 'request') {
        if (parsed.request.method === 'image.export') stats.granted += parsed.request.credit;
        agent.start(parsed.id, parsed.request);
      } else if (parsed.type === 'cancel') agent.cancel(parsed.id);
      else if (parsed.type === 'credit') {
        stats.creditFrames += 1;
        stats.granted += parsed.chunks;
        agent.credit(parsed.id, parsed.chunks);
      }
    });
  }, 'agent test');
  // The agent's real send queue over a socket that never fills: what it writes is what the hub reads.
  const sender = new EdgeSender({
    capBytes: 8 * 1024 * 1024,
    timers: realTimers,
    onOverflow: () => undefined,
    socket: {
      bufferedAmount: 0,
      readyState: 1,
      send(text: string) {
        const parsed = v.parse(AgentFrameSchema, JSON.parse(text)) as AgentFrame;
        if (parsed.type === 'chunk') {
          stats.chunksSent += 1;
          // Never past the hub's credit, and never more than the window (plus the chunk in the reader's hands) ahead of it.
          expect(stats.chunksSent).toBeLessThanOrEqual(stats.granted);
          stats.maxAhead = Math.max(stats.maxAhead, stats.chunksSent - stats.taken);
          // The Docker read waits with the sender: at most the chunk being filled and one piece beyond what was sent.
          expect(docker.read).toBeLessThanOrEqual((stats.chunksSent + 1) * EDGE_EXPORT_CHUNK_BYTES + PIECE);
        }
        queueMicrotask(() => {
          if (parsed.type === 'reply') hub.settle(parsed);
          else if (parsed.type === 'chunk') {
            const verdict = hub.chunk(parsed);
            if (verdict) refusals.push(verdict.reason);
          }
        });
      },
    },
  });
  const watcher = { name: 'local', host: docker as unknown as DockerHost } as WatcherRuntime;
  const ring = createLogRing(10);
  agent = new SessionRequests({
    sender,
    watchers: [watcher],
    ring,
    logger: createLogger({ level: 'fatal', ring, sink: () => undefined }),
    timers: realTimers,
    maxRequests: 64,
    isOpen: () => true,
  });
  const host = new EdgeDockerHost({
    agentName: 'nas',
    watcherName: 'local',
    endpoint: 'unix:///x',
    requestTimeoutMs: 5_000,
    now: Date.now,
  });
  host.setLink({ request: (request, options) => hub.request(request, options) });
  return { host, hub, stats, refusals };
}

describe('image.export between the real hub and agent request code', () => {
  it('delivers every byte in order to a slow reader, the agent never ahead of the credit and its Docker read paused', async () => {
    const size = 12 * EDGE_EXPORT_CHUNK_BYTES + 12_345;
    const docker = new CountingHost(size);
    const { host, stats, refusals } = joined(docker);
    let received = 0;
    let mismatch = -1;
    for await (const chunk of host.exportImage('sha256:known', new AbortController().signal)) {
      stats.taken += 1;
      for (let i = 0; i < chunk.length; i++)
        if (mismatch < 0 && chunk[i] !== (received + i) % 251) mismatch = received + i;
      received += chunk.length;
      // A slow reader: the agent has long filled its credit by the time this one asks for more.
      await sleep(15);
    }
    expect(mismatch).toBe(-1);
    expect(received).toBe(size);
    expect(stats.chunksSent).toBe(13);
    expect(stats.maxAhead).toBeLessThanOrEqual(EXPORT_WINDOW_CHUNKS + 1);
    expect(stats.creditFrames).toBeGreaterThan(0);
    expect(refusals).toEqual([]);
    expect(docker.closed).toBe(true);
  });

  it('stops the Docker read when the reader leaves mid-stream (the hub cancels)', async () => {
    const docker = new CountingHost(64 * EDGE_EXPORT_CHUNK_BYTES);
    const { host, stats } = joined(docker);
    let taken = 0;
    for await (const _chunk of host.exportImage('sha256:known', new AbortController().signal)) {
      taken += 1;
      if (taken === 3) break;
    }
    await expect.poll(() => docker.closed).toBe(true);
    const readAtCancel = docker.read;
    await sleep(50);
    expect(docker.read).toBe(readAtCancel);
    expect(docker.read).toBeLessThan(docker.size / 4);
    expect(stats.chunksSent).toBeLessThanOrEqual(3 + EXPORT_WINDOW_CHUNKS);
  });

  it('stops the Docker read when the caller aborts while the agent waits for credit', async () => {
    const docker = new CountingHost(64 * EDGE_EXPORT_CHUNK_BYTES);
    const { host } = joined(docker);
    const controller = new AbortController();
    const reader = host.exportImage('sha256:known', controller.signal)[Symbol.asyncIterator]();
    await reader.next();
    await sleep(30);
    controller.abort();
    await expect(
      (async () => {
        for (let next = await reader.next(); !next.done; next = await reader.next());
      })(),
    ).rejects.toMatchObject({ code: 'aborted' });
    await expect.poll(() => docker.closed).toBe(true);
  });

  it('answers a gone image with DockerNotFoundError, and a third export at once with busy', async () => {
    const docker = new CountingHost(8 * EDGE_EXPORT_CHUNK_BYTES);
    const { host, hub } = joined(docker);
    const gone = host.exportImage('sha256:gone', new AbortController().signal)[Symbol.asyncIterator]();
    await expect(gone.next()).rejects.toBeInstanceOf(DockerNotFoundError);
    // Two exports whose readers never read hold the agent's two slots.
    const held = [new ChunkQueue(1), new ChunkQueue(1)].map((queue) =>
      hub
        .request(
          { method: 'image.export', watcher: 'local', imageId: 'sha256:known', credit: 1 },
          { chunks: queue, timeoutMs: 5_000 },
        )
        .catch(() => undefined),
    );
    await sleep(20);
    const third = host.exportImage('sha256:known', new AbortController().signal)[Symbol.asyncIterator]();
    await expect(third.next()).rejects.toMatchObject({ code: 'busy' });
    hub.failAll('done');
    await Promise.all(held);
  });
});
