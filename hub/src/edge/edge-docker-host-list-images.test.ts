import { describe, expect, it } from 'vitest';
import type { EdgeRequest, HubFrame } from '../../../shared/edge/protocol';
import { AgentNotConnectedError, EdgeDockerHost } from './edge-docker-host';
import { PendingRequests } from './edge-requests';

const summary = { id: 'sha256:1', repoTags: ['app:1'], repoDigests: [], createdAt: 1_700_000_000_000, sizeBytes: 5, containers: -1 };

/** The hub's request correlation, with an in-test agent answering `image.list` as `answer` says. */
function linked(answer: (request: EdgeRequest, id: string, requests: PendingRequests) => void) {
  const sent: HubFrame[] = [];
  const requests: PendingRequests = new PendingRequests((frame) => {
    sent.push(frame);
    if (frame.type === 'request') queueMicrotask(() => answer(frame.request, frame.id, requests));
  }, 'agent nas');
  const host = new EdgeDockerHost({ agentName: 'nas', watcherName: 'local', endpoint: 'unix:///x', requestTimeoutMs: 1_000 });
  host.setLink({ request: (request, options) => requests.request(request, options) });
  return { host, sent };
}

describe('EdgeDockerHost.listImages (the image list of an agent)', () => {
  it("sends image.list for the watcher and answers the agent's images and whether it cut them", async () => {
    const { host, sent } = linked((_request, id, requests) =>
      requests.settle({ type: 'reply', id, ok: true, result: { images: [summary], truncated: true } }),
    );
    expect(await host.listImages()).toEqual({ images: [summary], truncated: true });
    expect(sent).toEqual([expect.objectContaining({ type: 'request', request: { method: 'image.list', watcher: 'local' } })]);
  });

  it('passes an older agent’s unsupported on, and refuses a reply without a valid list', async () => {
    const older = linked((_request, id, requests) =>
      requests.settle({
        type: 'reply',
        id,
        ok: false,
        error: { code: 'unsupported', message: 'method image.list is not supported by this agent' },
      }),
    );
    await expect(older.host.listImages()).rejects.toThrow(/not supported/);
    const empty = linked((_request, id, requests) => requests.settle({ type: 'reply', id, ok: true }));
    await expect(empty.host.listImages()).rejects.toThrow(/agent nas: no usable image list/);
    const wrong = linked((_request, id, requests) =>
      requests.settle({ type: 'reply', id, ok: true, result: { images: [{ ...summary, sizeBytes: 'big' }], truncated: false } }),
    );
    await expect(wrong.host.listImages()).rejects.toThrow(/no usable image list/);
  });

  it('throws AgentNotConnectedError while the agent is away', async () => {
    const away = new EdgeDockerHost({ agentName: 'nas', watcherName: 'local', endpoint: 'unix:///x', requestTimeoutMs: 1_000 });
    await expect(away.listImages()).rejects.toBeInstanceOf(AgentNotConnectedError);
  });
});
