import { describe, expect, it } from 'vitest';
import { DockerConflictError } from '../../../shared/docker/docker-host';
import type { EdgeRequest, HubFrame } from '../../../shared/edge/protocol';
import { AgentNotConnectedError, EdgeDockerHost } from './edge-docker-host';
import { PendingRequests } from './edge-requests';

const image = (id: string) => ({ id, repoTags: [`app:${id.slice(-1)}`], repoDigests: [], os: 'linux', architecture: 'amd64' });

/** The hub's request correlation, with an in-test agent answering `image.remove` as `answer` says. */
function linked(answer: (request: EdgeRequest, id: string, requests: PendingRequests) => void) {
  const sent: HubFrame[] = [];
  const requests: PendingRequests = new PendingRequests((frame) => {
    sent.push(frame);
    if (frame.type === 'request') queueMicrotask(() => answer(frame.request, frame.id, requests));
  }, 'agent nas');
  const host = new EdgeDockerHost({ agentName: 'nas', watcherName: 'local', endpoint: 'unix:///x', requestTimeoutMs: 1_000 });
  host.setLink({ request: (request, options) => requests.request(request, options) });
  host.applySnapshot([], [image('sha256:1'), image('sha256:2')]);
  return { host, sent };
}

describe('EdgeDockerHost.removeImage (the prune on an agent)', () => {
  it('sends image.remove for the watcher and forgets the image once the agent removed it', async () => {
    const { host, sent } = linked((_request, id, requests) => requests.settle({ type: 'reply', id, ok: true }));
    await host.removeImage('sha256:1');
    expect(sent).toEqual([
      expect.objectContaining({ type: 'request', request: { method: 'image.remove', watcher: 'local', imageId: 'sha256:1' } }),
    ]);
    expect(await host.inspectImage('sha256:1')).toBeUndefined();
    expect(await host.inspectImage('sha256:2')).toMatchObject({ id: 'sha256:2' });
  });

  it("answers the agent's conflict as Docker's 409 (left standing by the prune) and keeps the image", async () => {
    const { host } = linked((_request, id, requests) =>
      requests.settle({ type: 'reply', id, ok: false, error: { code: 'conflict', message: 'the image sha256:1 is used by web' } }),
    );
    const refused = host.removeImage('sha256:1');
    await expect(refused).rejects.toBeInstanceOf(DockerConflictError);
    await expect(refused).rejects.toThrow(/used by web/);
    expect(await host.inspectImage('sha256:1')).toMatchObject({ id: 'sha256:1' });
  });

  it('throws AgentNotConnectedError while the agent is away, and passes other refusals on', async () => {
    const away = new EdgeDockerHost({ agentName: 'nas', watcherName: 'local', endpoint: 'unix:///x', requestTimeoutMs: 1_000 });
    await expect(away.removeImage('sha256:1')).rejects.toBeInstanceOf(AgentNotConnectedError);
    const { host } = linked((_request, id, requests) =>
      requests.settle({ type: 'reply', id, ok: false, error: { code: 'unsupported', message: 'method image.remove is not supported' } }),
    );
    await expect(host.removeImage('sha256:1')).rejects.toThrow(/not supported/);
  });
});
