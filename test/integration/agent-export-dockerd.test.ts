/**
 * The agent's `image.export` handler on a real dockerd (docs/edge-protocol.md "Image export"): the
 * agent's real request code (SessionRequests, its EdgeSender) streams an image with a 24 MiB layer
 * from the Engine's `docker save` through the agent's dockerode host, counted as it is pulled. The
 * hub here is a reader that never reads on its own: the agent must stop at its credit with the
 * Engine's stream paused, go on by exactly what each credit frame grants, and end the Engine's
 * stream when the hub cancels.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatcherRuntime } from '../../edge-agent/src/feed/watcher-runtime';
import { EdgeSender } from '../../edge-agent/src/link/send-queue';
import { realTimers } from '../../edge-agent/src/link/timers';
import { SessionRequests } from '../../edge-agent/src/requests/session-requests';
import type { DockerHost } from '../../shared/docker/docker-host';
import { type AgentFrame, AgentFrameSchema, EDGE_EXPORT_CHUNK_BYTES } from '../../shared/edge/protocol';
import { createLogRing } from '../../shared/logging/log-ring';
import { createLogger } from '../../shared/logging/logger';
import { delegatingHost } from '../support/docker/delegating-host';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage } from '../support/docker/test-images';
import { waitFor } from '../support/edge-peer';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** What Node and the Engine's HTTP chunks may hold beyond the chunk being filled. */
const SLACK = 1024 * 1024;

describe("the agent's image.export on a real dockerd", () => {
  let dockerd: TestDockerd;
  let imageId: string;
  let dir: string;

  beforeAll(async () => {
    dockerd = await startDockerd();
    await importBusyboxImage(dockerd.docker, { repository: 'export/base', tag: '1' });
    dir = await mkdtemp(join(tmpdir(), 'dd-export-'));
    await writeFile(join(dir, 'blob.bin'), randomBytes(24 * 1024 * 1024));
    await writeFile(join(dir, 'Dockerfile'), 'FROM export/base:1\nCOPY blob.bin /blob.bin\n');
    const built = await dockerd.cli(['build', '--network', 'none', '-t', 'export/big:1', dir]);
    if (built.code !== 0) throw new Error(`docker build: ${built.stderr}`);
    imageId = (await dockerd.docker.getImage('export/big:1').inspect()).Id;
  }, 180_000);

  afterAll(async () => {
    await dockerd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The agent's request code on the dockerd, the Engine's export counted; frames parsed as the hub would. */
  function agentOnDockerd() {
    const counted = { read: 0, ended: false };
    const real = dockerd.dockerHost;
    const host = delegatingHost(real, {
      async *exportImage(id: string, signal: AbortSignal) {
        try {
          for await (const piece of (real.exportImage as NonNullable<DockerHost['exportImage']>).call(
            real,
            id,
            signal,
          )) {
            counted.read += piece.length;
            yield piece;
          }
        } finally {
          counted.ended = true;
        }
      },
    });
    const frames: AgentFrame[] = [];
    const sender = new EdgeSender({
      capBytes: 8 * 1024 * 1024,
      timers: realTimers,
      onOverflow: () => undefined,
      socket: {
        bufferedAmount: 0,
        readyState: 1,
        send: (text: string) => frames.push(v.parse(AgentFrameSchema, JSON.parse(text)) as AgentFrame),
      },
    });
    const ring = createLogRing(10);
    const requests = new SessionRequests({
      sender,
      watchers: [{ name: 'local', host } as WatcherRuntime],
      ring,
      logger: createLogger({ level: 'fatal', ring, sink: () => undefined }),
      timers: realTimers,
      maxRequests: 8,
      isOpen: () => true,
    });
    const chunks = () => frames.filter((frame) => frame.type === 'chunk');
    return { requests, frames, counted, chunks };
  }

  it('stops at its credit with the Engine stream paused, and sends exactly what each grant allows', async () => {
    const { requests, counted, chunks } = agentOnDockerd();
    requests.start('e1', { method: 'image.export', watcher: 'local', imageId, credit: 2 });
    await waitFor(() => (chunks().length === 2 ? true : undefined), 30_000, 'two chunks');
    await sleep(500);
    expect(chunks()).toHaveLength(2);
    expect(counted.read).toBeLessThanOrEqual(3 * EDGE_EXPORT_CHUNK_BYTES + SLACK);
    expect(counted.ended).toBe(false);

    requests.credit('e1', 3);
    await waitFor(() => (chunks().length === 5 ? true : undefined), 30_000, 'five chunks');
    await sleep(300);
    expect(chunks()).toHaveLength(5);
    expect(chunks().map((frame) => (frame.type === 'chunk' ? frame.seq : -1))).toEqual([0, 1, 2, 3, 4]);
    expect(counted.read).toBeLessThanOrEqual(6 * EDGE_EXPORT_CHUNK_BYTES + SLACK);

    // The hub cancels: the Engine's stream ends, far from the image's end, and the request replies.
    requests.cancel('e1');
    await waitFor(() => (counted.ended ? true : undefined), 10_000, 'the export stream ended');
    const readAtCancel = counted.read;
    await sleep(300);
    expect(counted.read).toBe(readAtCancel);
    expect(counted.read).toBeLessThan(12 * 1024 * 1024);
  });

  it('streams the whole image when the credit keeps up: the bytes are what docker save writes', async () => {
    const { requests, frames, chunks } = agentOnDockerd();
    requests.start('e2', { method: 'image.export', watcher: 'local', imageId, credit: 4 });
    let granted = 4;
    const reply = () => frames.find((frame) => frame.type === 'reply');
    while (!reply()) {
      await sleep(20);
      if (chunks().length >= granted - 2) {
        requests.credit('e2', 2);
        granted += 2;
      }
    }
    expect(reply()).toEqual({ type: 'reply', id: 'e2', ok: true });
    const received = Buffer.concat(
      chunks().map((frame) => (frame.type === 'chunk' ? Buffer.from(frame.data, 'base64') : Buffer.alloc(0))),
    );
    // Saved by id, as the Engine API's export does (by name the archive also names its tags).
    const saved = await dockerd.cli(['save', imageId, '-o', join(dir, 'saved.tar')]);
    expect(saved.code).toBe(0);
    const expected = await readFile(join(dir, 'saved.tar'));
    const size = expected.length;
    expect(received.length).toBe(size);
    expect(createHash('sha256').update(received).digest('hex')).toBe(
      createHash('sha256').update(expected).digest('hex'),
    );
    expect(chunks().length).toBe(Math.ceil(size / EDGE_EXPORT_CHUNK_BYTES));
  });

  it('answers an unknown image not-found', async () => {
    const { requests, frames } = agentOnDockerd();
    requests.start('e3', { method: 'image.export', watcher: 'local', imageId: `sha256:${'0'.repeat(64)}`, credit: 1 });
    const reply = await waitFor(() => frames.find((frame) => frame.type === 'reply'), 10_000, 'the reply');
    expect(reply).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });
});
