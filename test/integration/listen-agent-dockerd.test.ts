import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListenAgent } from '../../edge-agent/src/cli/run-listen';
import type { ListenAgent } from '../../edge-agent/src/listen/listen-agent';
import type {
  AgentAck,
  AgentContainer,
  AgentInventoryResult,
  AgentWatcher,
} from '../../shared/agent-api/listen-schemas';
import type { LogEntry } from '../../shared/schemas/log-entry';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { waitFor } from '../support/edge-peer';
import { readSse, type SseEvent, type SseStream } from '../support/sse-client';

const SECRET = 'listen-test-secret-0123456789abcdef';
const HEADER = 'X-Dd-Agent-Secret';
const IMAGE = 'test/listen:1';

interface Message<T = unknown> {
  type: string;
  data: T;
}
const messageOf = <T>(event: SseEvent): Message<T> => JSON.parse(event.data) as Message<T>;

/**
 * The listen-mode agent (http-interface §4.5) as `npm run agent -- --listen` starts it (variables, secret,
 * logging), on a real dockerd, through real HTTP on loopback: every route with its statuses,
 * the event stream (http-interface §6.2), and the secret never in a log line.
 */
describe('listen-mode agent on a real Docker Engine', () => {
  let dockerd: TestDockerd;
  let agent: ListenAgent;
  /** No Docker behind its watcher, deleting disabled: the 503 and 403 answers. */
  let blind: ListenAgent;
  const logLines: string[] = [];
  let baseId: string;

  /** `secret` null: no header at all. */
  const call = (path: string, init: RequestInit = {}, secret: string | null = SECRET) =>
    fetch(`${agent.url}${path}`, {
      ...init,
      headers: { ...(secret !== null && { [HEADER]: secret }), ...init.headers },
    });
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await call(path, init);
    if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const post = (path: string, body?: unknown) =>
    call(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  async function openEvents(): Promise<SseStream> {
    const response = await call('/api/events', { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    return readSse(response);
  }
  async function nextMessage<T>(
    stream: SseStream,
    match: (message: Message<T>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Message<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = messageOf<T>(await stream.next(Math.max(1, deadline - Date.now())));
      if (match(message)) return message;
    }
  }

  beforeAll(async () => {
    dockerd = await startDockerd();
    await importBusyboxImage(dockerd.docker, { repository: 'test/listen', tag: '1', cmd: ['sleep', '3600'] });
    baseId = await runContainer(dockerd.docker, { name: 'base', image: IMAGE, env: ['API_TOKEN=s3cr3t', 'PLAIN=1'] });
    const sink = (entry: { msg: string }, fields?: Record<string, unknown>) => {
      logLines.push(`${entry.msg} ${JSON.stringify(fields ?? {})}`);
    };
    agent = await startListenAgent(
      { command: 'listen', port: 0 },
      {
        env: {
          DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
          DD_AGENT_SECRET: SECRET,
          DD_SERVER_FEATURE_DELETE: 'true',
          DD_LOG_LEVEL: 'debug',
        },
        sink,
        overrides: { eventDebounceMs: 50 },
      },
    );
    blind = await startListenAgent(
      { command: 'listen', port: 0, secret: SECRET },
      { env: { DD_WATCHER_LOCAL_SOCKET: '/nonexistent/docker.sock' }, sink },
    );
    await waitFor(() => (agent.watchers[0]?.registered ? true : undefined), 10_000, 'first observation');
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await blind?.stop();
    await dockerd?.stop();
  });

  it('binds loopback by default', () => {
    expect(agent.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers /health without the secret: 200 {uptime} with a registered watcher, 503 {status, reason} without', async () => {
    const healthy = await fetch(`${agent.url}/health`);
    expect(healthy.status).toBe(200);
    const body = (await healthy.json()) as { uptime: number };
    expect(Object.keys(body)).toEqual(['uptime']);
    expect(body.uptime).toBeGreaterThan(0);

    const unhealthy = await fetch(`${blind.url}/health`);
    expect(unhealthy.status).toBe(503);
    const reason = (await unhealthy.json()) as { status: string; reason: string };
    expect(reason.status).toBe('unhealthy');
    expect(reason.reason).toMatch(/docker\.local/);
  });

  it.each([
    ['GET', '/api/containers'],
    ['GET', '/api/watchers'],
    ['GET', '/api/triggers'],
    ['POST', '/api/watchers/docker/local'],
    ['POST', '/api/watchers/docker/local/container/abc'],
    ['POST', '/api/watchers/docker/local/inventory'],
    ['DELETE', '/api/containers/abc'],
    ['GET', '/api/events'],
    ['GET', '/api/containers/abc/logs'],
    ['GET', '/api/log/entries'],
    ['POST', '/api/triggers/http/t'],
    ['POST', '/api/triggers/http/t/batch'],
    ['POST', '/api/containers/abc/stop'],
  ])('refuses %s %s with 401 and a JSON body, without the secret or with a wrong one', async (method, path) => {
    for (const secret of [null, 'wrong', `${SECRET}x`, '', SECRET.toUpperCase()]) {
      const response = await call(path, { method }, secret);
      expect(response.status, `secret ${JSON.stringify(secret)}`).toBe(401);
      expect(((await response.json()) as { error: string }).error).toMatch(/X-Dd-Agent-Secret/);
    }
  });

  it('lists containers as spec records with the raw Docker views, env unredacted, and the revision', async () => {
    const response = await call('/api/containers');
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('x-dd-agent-revision'))).toBeGreaterThan(0);
    const containers = (await response.json()) as AgentContainer[];
    const base = containers.find((c) => c.id === baseId);
    expect(base).toMatchObject({
      name: 'base',
      watcher: 'local',
      status: 'running',
      image: { name: 'test/listen', tag: { value: '1' } },
      updateAvailable: false,
      docker: { container: { id: baseId, state: 'running', image: IMAGE } },
    });
    expect(base?.docker.container.env).toContain('API_TOKEN=s3cr3t');
    expect(base?.env).toContainEqual({ key: 'API_TOKEN', value: 's3cr3t' });
    expect(base?.docker.image?.repoTags).toContain(IMAGE);
  });

  it('lists its watchers (http-interface §2.2) and no triggers; trigger runs are 404', async () => {
    const watchers = await json<AgentWatcher[]>('/api/watchers');
    expect(watchers).toEqual([
      expect.objectContaining({
        id: 'docker.local',
        type: 'docker',
        name: 'local',
        configuration: {
          endpoint: `unix://${dockerd.socketPath}`,
          cron: '0 * * * *',
          jitter: 60,
          watchbydefault: true,
          watchall: false,
        },
        metadata: expect.objectContaining({
          inventoryRefreshSupported: true,
          lastRunAt: expect.any(String),
          nextRunAt: expect.any(String),
        }),
      }),
    ]);
    expect(await json('/api/triggers')).toEqual([]);
    for (const path of ['/api/triggers/http/t', '/api/triggers/http/t/batch']) {
      const response = await post(path, { id: baseId });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: string }).error).toMatch(/no triggers/);
    }
  });

  it('streams dd:ack at once, then the containers of `docker run` and `docker stop` with their revisions', async () => {
    const stream = await openEvents();
    try {
      const first = await stream.next(2_000);
      const ack = messageOf<AgentAck>(first);
      expect(ack.type).toBe('dd:ack');
      expect(first.id).toBeUndefined();
      expect(Object.keys(ack.data).sort()).toEqual(
        [
          'version',
          'build',
          'os',
          'arch',
          'cpus',
          'memoryGb',
          'uptimeSeconds',
          'lastSeen',
          'logLevel',
          'pollInterval',
          'containers',
          'images',
        ].sort(),
      );
      expect(ack.data).toMatchObject({
        logLevel: 'debug',
        pollInterval: '0 * * * *',
        os: process.platform,
        arch: process.arch,
      });
      expect(ack.data.containers.total).toBeGreaterThanOrEqual(1);
      expect(ack.data.images).toBeGreaterThanOrEqual(1);
      expect(ack.data.build?.startsWith(ack.data.version)).toBe(true);

      const id = await runContainer(dockerd.docker, { name: 'late', image: IMAGE });
      let addedEvent: SseEvent | undefined;
      for (;;) {
        const event = await stream.next(10_000);
        const message = messageOf<AgentContainer>(event);
        if (message.type === 'dd:container-added' && message.data.id === id) {
          addedEvent = event;
          break;
        }
      }
      expect(messageOf<AgentContainer>(addedEvent).data).toMatchObject({
        name: 'late',
        status: 'running',
        docker: { container: { id } },
      });
      const revision = Number(addedEvent.id);
      expect(revision).toBeGreaterThan(0);

      await dockerd.docker.getContainer(id).stop({ t: 0 });
      const removed = await nextMessage<{ id: string; watcher: string }>(
        stream,
        (m) => m.type === 'dd:container-removed',
      );
      expect(removed.data).toEqual({ id, watcher: 'local' });
    } finally {
      await stream.close();
    }
  });

  it('watches manually: the whole watcher, one container, 404 for unknown ones', async () => {
    const all = await post('/api/watchers/docker/local');
    expect(all.status).toBe(200);
    expect(((await all.json()) as AgentContainer[]).map((c) => c.id)).toContain(baseId);
    const one = await post(`/api/watchers/docker/local/container/${baseId}`);
    expect(one.status).toBe(200);
    expect(((await one.json()) as AgentContainer).id).toBe(baseId);
    expect((await post('/api/watchers/docker/nope')).status).toBe(404);
    expect((await post('/api/watchers/kubernetes/local')).status).toBe(404);
    expect((await post('/api/watchers/docker/local/container/0123456789ab')).status).toBe(404);
  });

  it('refreshes the inventory for an operationId: http-interface §4.3 result, and dd:inventory-* events carrying it', async () => {
    // Taken out of the agent's state only: the refresh finds it again and says so with the operation's id.
    expect((await call(`/api/containers/${baseId}`, { method: 'DELETE' })).status).toBe(204);
    const stream = await openEvents();
    try {
      const operationId = crypto.randomUUID();
      const response = await post('/api/watchers/docker/local/inventory', { operationId });
      expect(response.status).toBe(200);
      const result = (await response.json()) as AgentInventoryResult;
      expect(result.context).toEqual({ operationId, source: { type: 'docker', name: 'local' } });
      expect(result.authoritative).toBe(true);
      expect(result.errors).toEqual([]);
      expect(result.containers.map((c) => c.id)).toContain(baseId);
      const added = await nextMessage<{ operationId: string; watcher: string; container: AgentContainer }>(
        stream,
        (m) => m.type === 'dd:inventory-added',
      );
      expect(added.data).toMatchObject({ operationId, watcher: 'local', container: { id: baseId } });
    } finally {
      await stream.close();
    }
    for (const body of [{}, { operationId: 'not-a-uuid' }, { operationId: '6f1c0d3e-1111-1111-8111-111111111111' }]) {
      const bad = await post('/api/watchers/docker/local/inventory', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('deletes from its state only with DD_SERVER_FEATURE_DELETE; 403 without, 404 for unknown ids', async () => {
    const stream = await openEvents();
    try {
      expect((await call(`/api/containers/${baseId}`, { method: 'DELETE' })).status).toBe(204);
      const removed = await nextMessage<{ id: string }>(stream, (m) => m.type === 'dd:container-removed');
      expect(removed.data.id).toBe(baseId);
    } finally {
      await stream.close();
    }
    // The Docker container stays: a manual watch finds it again.
    expect(((await (await post('/api/watchers/docker/local')).json()) as AgentContainer[]).map((c) => c.id)).toContain(
      baseId,
    );
    expect((await call('/api/containers/0123456789ab', { method: 'DELETE' })).status).toBe(404);
    const refused = await fetch(`${blind.url}/api/containers/${baseId}`, {
      method: 'DELETE',
      headers: { [HEADER]: SECRET },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { details: { feature: string } }).details.feature).toBe(
      'DD_SERVER_FEATURE_DELETE',
    );
  });

  it('serves a container log as text (the hub query) and as JSON lines; 404 unknown, 400 bad query', async () => {
    const id = await runContainer(dockerd.docker, {
      name: 'talker',
      image: IMAGE,
      cmd: ['sh', '-c', 'echo one; echo two >&2; sleep 3600'],
    });
    await waitFor(
      async () => ((await (await call(`/api/containers/${id}/logs`)).text()).includes('two') ? true : undefined),
      10_000,
      'log',
    );
    const text = await call(`/api/containers/${id}/logs?tail=10`);
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    const lines = (await text.text()).trim().split('\n');
    expect(lines.map((line) => line.replace(/^\S+ /, '')).sort()).toEqual(['one', 'two']);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT/);
    const plain = await (await call(`/api/containers/${id}/logs?timestamps=false&stderr=false`)).text();
    expect(plain).toBe('one\n');
    const jsonl = await call(`/api/containers/${id}/logs?format=jsonl`);
    expect(jsonl.headers.get('content-type')).toBe('application/x-ndjson');
    const parsed = (await jsonl.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { stream: string; line: string });
    expect(parsed.map(({ stream, line }) => `${stream}:${line}`).sort()).toEqual(['stderr:two', 'stdout:one']);
    // Followed: the lines so far come at once, and the stream stays open for more.
    const followed = await call(`/api/containers/${id}/logs?format=jsonl&follow=true&stderr=false`);
    const reader = (followed.body as ReadableStream<Uint8Array>).getReader();
    const firstChunk = new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(firstChunk.trim().split('\n')[0] as string)).toMatchObject({ stream: 'stdout', line: 'one' });
    await reader.cancel();
    expect((await call('/api/containers/0123456789ab/logs')).status).toBe(404);
    for (const query of ['tail=-1', 'stdout=false&stderr=false', 'since=yesterday', 'format=xml']) {
      expect((await call(`/api/containers/${id}/logs?${query}`)).status, query).toBe(400);
    }
  });

  it('starts, stops and restarts a container, answering it as Docker shows it after the action', async () => {
    const stopped = await post(`/api/containers/${baseId}/stop`);
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toMatchObject({
      id: baseId,
      watcher: 'local',
      listed: false,
      container: { status: 'exited' },
    });
    const started = await post(`/api/containers/${baseId}/start`);
    expect(await started.json()).toMatchObject({ id: baseId, listed: true, container: { status: 'running' } });
    expect((await post(`/api/containers/${baseId}/restart?watcher=local`)).status).toBe(200);
    expect((await post('/api/containers/0123456789ab/stop')).status).toBe(404);
    const stats = await json<{ cpuPercent: number; memoryBytes: number }>(`/api/containers/${baseId}/stats`);
    expect(stats.memoryBytes).toBeGreaterThan(0);
  });

  it('serves its log entries with level, component, tail and since in Unix milliseconds', async () => {
    const all = await json<LogEntry[]>('/api/log/entries?tail=1000');
    expect(all.length).toBeGreaterThan(2);
    const pivot = all[Math.floor(all.length / 2)] as LogEntry;
    const later = await json<LogEntry[]>(`/api/log/entries?tail=1000&since=${pivot.timestamp}`);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((entry) => entry.timestamp > pivot.timestamp)).toBe(true);
    expect(later.length).toBeLessThan(all.length);
    const warnings = await json<LogEntry[]>('/api/log/entries?level=warn&tail=1000');
    expect(warnings.every((entry) => ['warn', 'error', 'fatal'].includes(entry.level))).toBe(true);
    const watcherOnly = await json<LogEntry[]>('/api/log/entries?component=listen.watcher&tail=1000');
    expect(watcherOnly.length).toBeGreaterThan(0);
    expect(watcherOnly.every((entry) => entry.component.includes('listen.watcher'))).toBe(true);
    expect(await json<LogEntry[]>('/api/log/entries?tail=1')).toHaveLength(1);
    for (const query of ['level=loud', 'component=a%20b', 'tail=x', 'since=-5']) {
      expect((await call(`/api/log/entries?${query}`)).status, query).toBe(400);
    }
  });

  it('never writes the secret to its log, refused attempts included', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.some((line) => line.includes('refused'))).toBe(true);
    expect(logLines.filter((line) => line.includes(SECRET))).toEqual([]);
  });
});
