import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentEvent } from '../../shared/agent-api/listen-schemas';
import type { DockerContainerDetails, DockerImageDetails } from '../../shared/docker/docker-host';

/** A container object as the hub reads it: id, watcher and the Docker views (the record fields are the agent's business). */
export interface PeerContainer {
  id: string;
  watcher: string;
  docker: { container: DockerContainerDetails; image: DockerImageDetails };
}

export interface PeerRequest {
  method: string;
  path: string;
  secret: string | undefined;
  body: string;
}

export interface ListenAgentPeer {
  url: string;
  port: number;
  secret: string;
  /** What GET /api/containers answers, with `revision` in X-Dd-Agent-Revision. */
  containers: PeerContainer[];
  revision: number;
  /** Every request received, in order. */
  requests: PeerRequest[];
  /** Streams open now. */
  readonly streams: number;
  /** Answers POST .../inventory (default: the containers, authoritative, at once). */
  onInventory: (operationId: string, watcher: string) => Promise<{ status: number; body: unknown }>;
  /** Answers any other route (an update, GET /api/operations); undefined, or none set: 404, as an agent without it. */
  onOther: ((request: PeerRequest) => Promise<{ status: number; body?: unknown } | undefined>) | undefined;
  /** Sends an event to every open stream, with `id: revision` when given. */
  send(event: AgentEvent | { type: string; data: unknown }, revision?: number): void;
  /** Ends every open stream (the agent restarted, say). */
  dropStreams(): void;
  /** False: no keepalive comments (a silent, half-open connection). */
  keepalive: boolean;
  close(): Promise<void>;
}

export function peerContainer(id: string, name: string, watcher = 'local'): PeerContainer {
  const imageId = `sha256:${'b'.repeat(64)}`;
  return {
    id,
    watcher,
    docker: {
      container: {
        id,
        name,
        image: '127.0.0.1:9/peer/app:1',
        imageId,
        state: 'running',
        labels: {},
        createdAt: Date.UTC(2024, 0, 1),
        env: ['API_TOKEN=s3cr3t'],
        restartCount: 0,
      },
      image: { id: imageId, repoTags: ['127.0.0.1:9/peer/app:1'], repoDigests: [], os: 'linux', architecture: 'amd64' },
    },
  };
}

const ACK = {
  version: '9.8.7',
  build: '9.8.7-rc.1',
  os: 'linux',
  arch: 'arm64',
  cpus: 4,
  memoryGb: 3.8,
  uptimeSeconds: 1234,
  lastSeen: new Date(0).toISOString(),
  logLevel: 'debug',
  pollInterval: '*/5 * * * *',
  containers: { total: 0, running: 0, stopped: 0 },
  images: 0,
};

/**
 * A scripted listen-mode agent for the hub's client: a real HTTP server on loopback that answers
 * the agent interface from what the test sets, and sends the events the test chooses, ill-timed
 * and unsolicited ones included, as the ws-style protocol tests do with misbehaving peers.
 */
export async function startListenAgentPeer(secret: string): Promise<ListenAgentPeer> {
  const open = new Set<ServerResponse>();
  const timers = new Map<ServerResponse, ReturnType<typeof setInterval>>();
  const peer: Omit<ListenAgentPeer, 'url' | 'port' | 'close' | 'streams'> = {
    secret,
    containers: [],
    revision: 1,
    requests: [],
    keepalive: true,
    onOther: undefined,
    onInventory: async (operationId, watcher) => ({
      status: 200,
      body: {
        context: { operationId, source: { type: 'docker', name: watcher } },
        containers: peer.containers.filter((c) => c.watcher === watcher),
        removedIds: [],
        errors: [],
        authoritative: true,
      },
    }),
    send(event, revision) {
      const text = `data: ${JSON.stringify(event)}\n${revision !== undefined ? `id: ${revision}\n` : ''}\n`;
      for (const response of open) response.write(text);
    },
    dropStreams() {
      for (const response of [...open]) response.destroy();
    },
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of request) body += chunk;
    const url = new URL(request.url ?? '/', 'http://peer');
    const given = request.headers['x-dd-agent-secret'];
    const received: PeerRequest = {
      method: request.method ?? '',
      path: url.pathname,
      secret: typeof given === 'string' ? given : undefined,
      body,
    };
    peer.requests.push(received);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(value));
    };
    if (given !== secret) return json(401, { error: 'A valid X-Dd-Agent-Secret header is required' });
    const revision = { 'x-dd-agent-revision': String(peer.revision) };
    if (url.pathname === '/api/events') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(`data: ${JSON.stringify({ type: 'dd:ack', data: ACK })}\n\n`);
      open.add(response);
      timers.set(
        response,
        setInterval(() => {
          if (peer.keepalive) response.write(': keepalive\n\n');
        }, 50),
      );
      response.on('close', () => {
        open.delete(response);
        clearInterval(timers.get(response));
        timers.delete(response);
      });
      return;
    }
    if (url.pathname === '/api/watchers') {
      return json(200, [
        {
          id: 'docker.local',
          type: 'docker',
          name: 'local',
          configuration: {
            endpoint: 'unix:///var/run/docker.sock',
            cron: '*/5 * * * *',
            jitter: 0,
            watchbydefault: false,
            watchall: false,
          },
          metadata: { inventoryRefreshSupported: true },
        },
      ]);
    }
    if (url.pathname === '/api/containers') return json(200, peer.containers, revision);
    const inventory = /^\/api\/watchers\/docker\/([^/]+)\/inventory$/.exec(url.pathname);
    if (inventory && request.method === 'POST') {
      const { operationId } = JSON.parse(body) as { operationId: string };
      const answer = await peer.onInventory(operationId, inventory[1] as string);
      return json(answer.status, answer.body, revision);
    }
    const other = await peer.onOther?.(received);
    if (!other) return json(404, { error: 'no such route' });
    if (other.body !== undefined) return json(other.status, other.body);
    response.writeHead(other.status);
    response.end();
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  Object.defineProperty(peer, 'streams', { get: () => open.size });
  return Object.assign(peer, {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      peer.dropStreams();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as ListenAgentPeer;
}
