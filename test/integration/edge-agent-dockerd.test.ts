import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeAgent, type EdgeAgent } from '../../edge-agent/src/agent/edge-agent';
import type { EdgeKey } from '../../edge-agent/src/keys/edge-key';
import { writeNewKeyFile } from '../../edge-agent/src/keys/key-file';
import { edgeSocketUrl } from '../../edge-agent/src/link/hub-url';
import { createAgentLogging } from '../../edge-agent/src/logging/agent-logging';
import type { WatcherConfig } from '../../shared/docker/watcher-config';
import { type AgentFrame, EDGE_CLOSE } from '../../shared/edge/protocol';
import { edgeKeyId, generateEdgeKeyPair } from '../../shared/edge/sign-in';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type HubPeer, type PeerConnection, startHubPeer } from '../support/edge-hub-peer';
import { AGENT_BUILD, REPO_ROOT } from '../support/hub-process';

type Changed = Extract<AgentFrame, { type: 'container.changed' }>;
type Removed = Extract<AgentFrame, { type: 'container.removed' }>;
const changed =
  (watcher: string, name: string, state?: string) =>
  (f: AgentFrame): f is Changed =>
    f.type === 'container.changed' &&
    f.watcher === watcher &&
    f.container.name === name &&
    (state === undefined || f.container.state === state);
const removed =
  (watcher: string, id: string) =>
  (f: AgentFrame): f is Removed =>
    f.type === 'container.removed' && f.watcher === watcher && f.containerId === id;

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The edge agent on a real dockerd, against a strict protocol peer playing the hub: the snapshot is
 * what the Engine really runs, Docker events become deltas, the hub's requests act on the Engine,
 * a closed socket is re-dialled with a full resync, and SIGTERM ends a real agent process cleanly.
 */
describe('edge agent on a real Docker Engine', () => {
  let dockerd: TestDockerd;
  let peer: HubPeer;
  let agent: EdgeAgent;
  let key: EdgeKey;
  let connection: PeerConnection;
  const publicKeys: Uint8Array[] = [];
  let imageId: string;
  let webId: string;
  let printerId: string;
  let haltedId: string;

  const watchers = (socketPath: string): WatcherConfig[] =>
    [
      { name: 'local', watchAll: false },
      { name: 'all', watchAll: true },
    ].map(({ name, watchAll }) => ({
      name,
      watchAll,
      endpoint: { socketPath },
      cron: '0 * * * *',
      jitterSeconds: 0,
      watchByDefault: true,
    }));

  beforeAll(async () => {
    dockerd = await startDockerd();
    imageId = await importBusyboxImage(dockerd.docker, { repository: 'test/edge', tag: '1', cmd: ['sleep', '3600'] });
    webId = await runContainer(dockerd.docker, {
      name: 'web',
      image: 'test/edge:1',
      env: ['API_TOKEN=s3cr3t'],
      labels: { 'dd.group': 'shop' },
    });
    printerId = await runContainer(dockerd.docker, {
      name: 'printer',
      image: 'test/edge:1',
      cmd: ['sh', '-c', 'echo one; echo two >&2; i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.1; done'],
    });
    haltedId = await runContainer(dockerd.docker, { name: 'halted', image: 'test/edge:1' });
    await dockerd.docker.getContainer(haltedId).stop();

    const pair = await generateEdgeKeyPair();
    key = { ...pair, keyId: edgeKeyId(pair.publicKey) };
    publicKeys.push(key.publicKey);
    peer = await startHubPeer({ publicKeys });
    const { logger, ring } = createAgentLogging('debug', () => {});
    agent = createEdgeAgent({
      url: edgeSocketUrl(peer.url),
      key,
      agentName: 'edge-one',
      watchers: watchers(dockerd.socketPath),
      logger,
      ring,
      logLevel: 'debug',
      reconnect: { minMs: 50, maxMs: 200 },
      eventDebounceMs: 50,
    });
    agent.start();
    connection = await peer.connection(0);
    await until(() => connection.signedIn);
  }, 120_000);

  afterAll(async () => {
    await agent?.stop();
    await peer?.close();
    await dockerd?.stop();
  });

  it('sends a full snapshot per watcher of exactly what the Engine runs, each image once', async () => {
    expect(connection.hello?.watchers).toEqual([
      {
        name: 'local',
        endpoint: `unix://${dockerd.socketPath}`,
        cron: '0 * * * *',
        jitterSeconds: 0,
        watchAll: false,
        watchByDefault: true,
        type: 'docker',
      },
      {
        name: 'all',
        endpoint: `unix://${dockerd.socketPath}`,
        cron: '0 * * * *',
        jitterSeconds: 0,
        watchAll: true,
        watchByDefault: true,
        type: 'docker',
      },
    ]);
    for (const [watcher, all] of [
      ['local', false],
      ['all', true],
    ] as const) {
      const parts = await connection.snapshot(watcher);
      const containers = parts.flatMap((part) => part.containers);
      const running = await dockerd.docker.listContainers({ all });
      expect(containers.map((c) => c.id).sort()).toEqual(running.map((c) => c.Id).sort());
      expect(parts.flatMap((part) => part.images)).toEqual([
        expect.objectContaining({ id: imageId, repoTags: ['test/edge:1'] }),
      ]);
      expect(parts.at(-1)?.last).toBe(true);
    }
    const [local] = await connection.snapshot('local');
    const web = local?.containers.find((c) => c.id === webId);
    expect(web).toMatchObject({
      name: 'web',
      image: 'test/edge:1',
      imageId,
      state: 'running',
      labels: { 'dd.group': 'shop' },
    });
    expect(web?.env).toContain('API_TOKEN=s3cr3t');
    expect(local?.containers.map((c) => c.id)).not.toContain(haltedId);
    expect((await connection.snapshot('all')).flatMap((p) => p.containers).find((c) => c.id === haltedId)?.state).toBe(
      'exited',
    );
  });

  it('turns Docker events into container.changed and container.removed', async () => {
    const from = connection.frames.length;
    const lateId = await runContainer(dockerd.docker, { name: 'late', image: 'test/edge:1' });
    const started = await connection.waitFor(changed('local', 'late', 'running'), 10_000, from);
    expect(started.container.id).toBe(lateId);
    expect(started.image?.id).toBe(imageId);
    await connection.waitFor(changed('all', 'late', 'running'), 10_000, from);

    const afterStop = connection.frames.length;
    await dockerd.docker.getContainer(lateId).stop();
    await connection.waitFor(removed('local', lateId), 10_000, afterStop);
    await connection.waitFor(changed('all', 'late', 'exited'), 10_000, afterStop);

    const afterRemove = connection.frames.length;
    await dockerd.docker.getContainer(lateId).remove();
    await connection.waitFor(removed('all', lateId), 10_000, afterRemove);
    expect(connection.invalid).toEqual([]);
  });

  it('stops, starts and restarts containers on request', async () => {
    const state = async () => (await dockerd.docker.getContainer(webId).inspect()).State.Status;
    expect(
      (await connection.request({ method: 'container.stop', watcher: 'local', containerId: webId })).reply,
    ).toEqual({
      type: 'reply',
      id: expect.any(String),
      ok: true,
    });
    expect(await state()).toBe('exited');
    expect(
      (await connection.request({ method: 'container.start', watcher: 'local', containerId: webId })).reply.ok,
    ).toBe(true);
    expect(await state()).toBe('running');
    const startedAt = (await dockerd.docker.getContainer(webId).inspect()).State.StartedAt;
    expect(
      (await connection.request({ method: 'container.restart', watcher: 'local', containerId: webId })).reply.ok,
    ).toBe(true);
    expect((await dockerd.docker.getContainer(webId).inspect()).State.StartedAt).not.toBe(startedAt);
  });

  it('answers not-found for an unknown container, and removes one on request', async () => {
    const missing = await connection.request({
      method: 'container.start',
      watcher: 'local',
      containerId: 'no-such-container',
    });
    expect(missing.reply).toMatchObject({ ok: false, error: { code: 'not-found' } });
    const stats = await connection.request({
      method: 'container.stats',
      watcher: 'local',
      containerId: 'no-such-container',
    });
    expect(stats.reply).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(
      (await connection.request({ method: 'container.remove', watcher: 'all', containerId: haltedId })).reply.ok,
    ).toBe(true);
    await expect(dockerd.docker.getContainer(haltedId).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('reports stats', async () => {
    const { reply } = await connection.request({ method: 'container.stats', watcher: 'local', containerId: printerId });
    expect(reply).toMatchObject({
      ok: true,
      result: { cpuPercent: expect.any(Number), memoryBytes: expect.any(Number) },
    });
    expect((reply as { result: { memoryBytes: number } }).result.memoryBytes).toBeGreaterThan(0);
  });

  it('streams logs, stdout and stderr apart, and ends a followed stream on cancel', async () => {
    const options = { stdout: true, stderr: true, timestamps: true, follow: false };
    const whole = await connection.request({
      method: 'container.logs',
      watcher: 'local',
      containerId: printerId,
      options,
    });
    expect(whole.reply.ok).toBe(true);
    const lines = whole.streams.flatMap((frame) => frame.lines);
    // stdout and stderr are separate pipes: their relative order is not kept by Docker.
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stream: 'stdout', line: 'one' }),
        expect.objectContaining({ stream: 'stderr', line: 'two' }),
      ]),
    );
    expect(lines.filter((line) => line.stream === 'stdout')[0]?.line).toBe('one');
    expect(lines[0]?.ts).toMatch(/^\d{4}-\d\d-\d\dT/);

    const id = connection.start({
      method: 'container.logs',
      watcher: 'local',
      containerId: printerId,
      options: { ...options, follow: true, tail: 0 },
    });
    await until(() => connection.frames.filter((f) => f.type === 'stream' && f.id === id).length >= 2);
    connection.send({ type: 'cancel', id });
    const { reply, streams } = await connection.result(id);
    expect(reply.ok).toBe(true);
    expect(streams.flatMap((s) => s.lines).every((line) => line.line.startsWith('tick '))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(connection.frames.filter((f) => f.type === 'stream' && f.id === id)).toHaveLength(streams.length);
  });

  it('answers an inventory request with snapshot parts echoing operationId, then the reply', async () => {
    const from = connection.frames.length;
    const { reply } = await connection.request({ method: 'inventory', watcher: 'local', operationId: 'op-42' });
    const parts = connection.frames.slice(from).filter((f) => f.type === 'snapshot');
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.every((p) => p.type === 'snapshot' && p.operationId === 'op-42' && p.watcher === 'local')).toBe(true);
    const running = await dockerd.docker.listContainers();
    expect(reply).toMatchObject({
      ok: true,
      result: { syncId: (parts[0] as { syncId: string }).syncId, containers: running.length },
    });
    const replyIndex = connection.frames.indexOf(reply);
    expect(connection.frames.indexOf(parts.at(-1) as AgentFrame)).toBeLessThan(replyIndex);
  });

  it('serves its own log entries', async () => {
    const { reply } = await connection.request({ method: 'log.entries', tail: 1000 });
    const entries = (reply as { result: { entries: { msg: string }[] } }).result.entries;
    expect(entries.some((e) => e.msg.includes('connected to'))).toBe(true);
  });

  it('reconnects after the socket closes and resyncs in full, changes made meanwhile included', async () => {
    peer.refuse({ status: 503, error: '{"error":"hub restarting"}' });
    connection.socket.close(EDGE_CLOSE.goingAway, 'hub shutting down');
    await connection.closed;
    const awayId = await runContainer(dockerd.docker, { name: 'while-away', image: 'test/edge:1' });
    await until(() => peer.upgrades.length >= 3);
    peer.refuse(undefined);
    const next = await peer.connection(1, 15_000);
    await until(() => next.signedIn);
    expect(next.hello?.signature).not.toBe(connection.hello?.signature);
    for (const watcher of ['local', 'all']) {
      const containers = (await next.snapshot(watcher)).flatMap((part) => part.containers);
      expect(containers.map((c) => c.id)).toContain(awayId);
    }
    connection = next;
    expect(next.invalid).toEqual([]);
  });

  it('a real agent process closes with 1000 and exits 0 on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edge-agent-'));
    try {
      const keyFile = join(dir, 'agent.key');
      publicKeys.push((await writeNewKeyFile(keyFile)).publicKey);
      const child = spawn(
        process.execPath,
        [AGENT_BUILD, '--hub', peer.url, '--key', keyFile, '--name', 'proc-agent'],
        {
          cwd: REPO_ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '/root',
            DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
            DD_LOG_LEVEL: 'debug',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const stdout: string[] = [];
      createInterface({ input: child.stdout }).on('line', (line) => stdout.push(line));
      const exited = once(child, 'exit');
      const index = peer.connections.length;
      const proc = await peer.connection(index, 20_000);
      await until(() => proc.signedIn);
      expect(proc.hello?.agentName).toBe('proc-agent');
      await proc.snapshot('local');
      child.kill('SIGTERM');
      expect(await proc.closed).toEqual({ code: 1001, reason: 'agent shutting down' });
      expect((await exited)[0]).toBe(0);
      const logged = stdout.map(
        (line) => JSON.parse(line) as { level: number; msg: string; component: string; time: number },
      );
      expect(logged.some((entry) => entry.component === 'edge.link' && entry.msg.startsWith('connected to'))).toBe(
        true,
      );
      expect(peer.connections).toHaveLength(index + 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
