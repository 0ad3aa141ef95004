import { describe, expect, it } from 'vitest';
import {
  DockerConflictError,
  type DockerContainerDetails,
  type DockerContainerEvent,
  DockerNotFoundError,
} from '../../../shared/docker/docker-host';
import type { AgentFrame, EdgeRequest, HubFrame } from '../../../shared/edge/protocol';
import { AgentNotConnectedError, EdgeDockerHost } from './edge-docker-host';
import { PendingRequests } from './edge-requests';

const container = (id: string, state: DockerContainerDetails['state'] = 'running'): DockerContainerDetails => ({
  id,
  name: id,
  image: 'nginx:1',
  imageId: 'sha256:1',
  state,
  labels: {},
  createdAt: 0,
  env: ['A=1'],
  restartCount: 0,
});
const image = { id: 'sha256:1', repoTags: ['nginx:1'], repoDigests: [], os: 'linux', architecture: 'amd64' };
const imageOf = (id: string) => ({
  id,
  repoTags: [`app:${id.slice(-1)}`],
  repoDigests: [],
  os: 'linux',
  architecture: 'amd64',
});
const summary = {
  id: 'sha256:1',
  repoTags: ['app:1'],
  repoDigests: [],
  createdAt: 1_700_000_000_000,
  sizeBytes: 5,
  containers: -1,
};

/** The host of agent `nas` before any link: the agent is away. */
const awayHost = () =>
  new EdgeDockerHost({
    agentName: 'nas',
    watcherName: 'local',
    endpoint: 'unix:///x',
    requestTimeoutMs: 1_000,
    now: Date.now,
  });

type ReplyError = Extract<AgentFrame, { type: 'reply'; ok: false }>['error'];

/** An agent that refuses every request with this error (`linked`'s answer). */
const refusing =
  (code: ReplyError['code'], message: string) =>
  (_request: EdgeRequest, id: string, requests: PendingRequests): void => {
    requests.settle({ type: 'reply', id, ok: false, error: { code, message } });
  };

/** The hub's request correlation, with an in-test agent answering each request frame as `answer` says. */
function linked(answer: (request: EdgeRequest, id: string, requests: PendingRequests) => void) {
  const sent: HubFrame[] = [];
  const requests: PendingRequests = new PendingRequests((frame) => {
    sent.push(frame);
    if (frame.type === 'request') queueMicrotask(() => answer(frame.request, frame.id, requests));
  }, 'agent nas');
  const host = awayHost();
  host.setLink({ request: (request, options) => requests.request(request, options) });
  return { host, sent };
}

describe('EdgeDockerHost', () => {
  it('refuses reads while the agent is away or before its snapshot, so an observation is never taken as complete', async () => {
    const host = awayHost();
    await expect(host.listContainers(false)).rejects.toBeInstanceOf(AgentNotConnectedError);
    await expect(host.listContainers(false)).rejects.toThrow('agent nas is not connected');
    host.setLink({ request: async () => undefined });
    await expect(host.inspectContainer('a')).rejects.toThrow(/has not sent the inventory/);
    host.applySnapshot([container('a'), container('b', 'exited')], [image]);
    expect((await host.listContainers(false)).map((c) => c.id)).toEqual(['a']);
    expect((await host.listContainers(true)).map((c) => c.id)).toEqual(['a', 'b']);
    expect(await host.inspectImage('sha256:1')).toEqual(image);
    host.setLink(undefined);
    await expect(host.inspectImage('sha256:1')).rejects.toBeInstanceOf(AgentNotConnectedError);
  });

  it('turns deltas into container events for the watcher', async () => {
    const { host } = linked(() => undefined);
    const seen: DockerContainerEvent[] = [];
    const subscription = host.subscribeEvents({ onEvent: (event) => seen.push(event), onClose: () => undefined });
    host.applySnapshot([], []);
    host.applyChanged(container('a'), image);
    host.applyRemoved('a');
    subscription.close();
    host.applyChanged(container('b'), undefined);
    expect(seen.map((event) => [event.id, event.action])).toEqual([
      ['a', 'changed'],
      ['a', 'removed'],
    ]);
    expect(await host.inspectContainer('b')).toMatchObject({ id: 'b' });
  });

  it('sends commands as requests and maps not-found to DockerNotFoundError', async () => {
    const { host, sent } = linked((request, id, requests) => {
      if (request.method === 'container.stats') {
        requests.settle({
          type: 'reply',
          id,
          ok: true,
          result: { cpuPercent: 1, memoryBytes: 2, memoryLimitBytes: 3 },
        });
      } else if (request.method === 'container.stop') {
        requests.settle({ type: 'reply', id, ok: false, error: { code: 'not-found', message: 'no such container' } });
      } else requests.settle({ type: 'reply', id, ok: true });
    });
    await host.restart('a');
    expect(await host.stats('a')).toEqual({ cpuPercent: 1, memoryBytes: 2, memoryLimitBytes: 3 });
    await expect(host.stop('a')).rejects.toBeInstanceOf(DockerNotFoundError);
    expect(sent.filter((f) => f.type === 'request').map((f) => (f.type === 'request' ? f.request.method : ''))).toEqual(
      ['container.restart', 'container.stats', 'container.stop'],
    );
  });

  it('streams log lines in order until the reply, and cancels when the reader leaves early', async () => {
    const { host, sent } = linked((request, id, requests) => {
      if (request.method !== 'container.logs') return;
      for (let i = 0; i < 3; i++)
        requests.stream({ type: 'stream', id, lines: [{ stream: 'stdout', ts: '', line: `line ${i}` }] });
      if (!request.options.follow) requests.settle({ type: 'reply', id, ok: true });
    });
    const options = { stdout: true, stderr: true, timestamps: false, follow: false };
    const lines: string[] = [];
    for await (const line of host.logs('a', options, new AbortController().signal)) lines.push(line.line);
    expect(lines).toEqual(['line 0', 'line 1', 'line 2']);

    const followed: string[] = [];
    for await (const line of host.logs('a', { ...options, follow: true }, new AbortController().signal)) {
      followed.push(line.line);
      if (followed.length === 2) break;
    }
    expect(followed).toEqual(['line 0', 'line 1']);
    expect(sent.at(-1)).toMatchObject({ type: 'cancel' });
  });
});

describe('EdgeDockerHost.removeImage (the prune on an agent)', () => {
  /** Linked, with two images in the agent's inventory. */
  const linkedWithImages = (answer: Parameters<typeof linked>[0]) => {
    const linkedHost = linked(answer);
    linkedHost.host.applySnapshot([], [imageOf('sha256:1'), imageOf('sha256:2')]);
    return linkedHost;
  };

  it('sends image.remove for the watcher and forgets the image once the agent removed it', async () => {
    const { host, sent } = linkedWithImages((_request, id, requests) =>
      requests.settle({ type: 'reply', id, ok: true }),
    );
    await host.removeImage('sha256:1');
    expect(sent).toEqual([
      expect.objectContaining({
        type: 'request',
        request: { method: 'image.remove', watcher: 'local', imageId: 'sha256:1' },
      }),
    ]);
    expect(await host.inspectImage('sha256:1')).toBeUndefined();
    expect(await host.inspectImage('sha256:2')).toMatchObject({ id: 'sha256:2' });
  });

  it("answers the agent's conflict as Docker's 409 (left standing by the prune) and keeps the image", async () => {
    const { host } = linkedWithImages(refusing('conflict', 'the image sha256:1 is used by web'));
    const refused = host.removeImage('sha256:1');
    await expect(refused).rejects.toBeInstanceOf(DockerConflictError);
    await expect(refused).rejects.toThrow(/used by web/);
    expect(await host.inspectImage('sha256:1')).toMatchObject({ id: 'sha256:1' });
  });

  it('throws AgentNotConnectedError while the agent is away, and passes other refusals on', async () => {
    const away = awayHost();
    await expect(away.removeImage('sha256:1')).rejects.toBeInstanceOf(AgentNotConnectedError);
    const { host } = linked(refusing('unsupported', 'method image.remove is not supported'));
    await expect(host.removeImage('sha256:1')).rejects.toThrow(/not supported/);
  });
});

describe('EdgeDockerHost.listImages (the image list of an agent)', () => {
  it("sends image.list for the watcher and answers the agent's images and whether it cut them", async () => {
    const { host, sent } = linked((_request, id, requests) =>
      requests.settle({ type: 'reply', id, ok: true, result: { images: [summary], truncated: true } }),
    );
    expect(await host.listImages()).toEqual({ images: [summary], truncated: true });
    expect(sent).toEqual([
      expect.objectContaining({ type: 'request', request: { method: 'image.list', watcher: 'local' } }),
    ]);
  });

  it('passes an older agent’s unsupported on, and refuses a reply without a valid list', async () => {
    const older = linked(refusing('unsupported', 'method image.list is not supported by this agent'));
    await expect(older.host.listImages()).rejects.toThrow(/not supported/);
    const empty = linked((_request, id, requests) => requests.settle({ type: 'reply', id, ok: true }));
    await expect(empty.host.listImages()).rejects.toThrow(/agent nas: no usable image list/);
    const wrong = linked((_request, id, requests) =>
      requests.settle({
        type: 'reply',
        id,
        ok: true,
        result: { images: [{ ...summary, sizeBytes: 'big' }], truncated: false },
      }),
    );
    await expect(wrong.host.listImages()).rejects.toThrow(/no usable image list/);
  });

  it('throws AgentNotConnectedError while the agent is away', async () => {
    const away = awayHost();
    await expect(away.listImages()).rejects.toBeInstanceOf(AgentNotConnectedError);
  });
});
