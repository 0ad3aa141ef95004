/**
 * An edge agent on a Podman host (issue 29 item 1, docs/sources.md "Podman"): a real agent process
 * (`npm run agent`) with DD_WATCHER_PM_TYPE=podman on Debian's real podman service, dialling a hub
 * in process; a plain registry holds the app's 1.0.0 and 2.0.0, pushed by podman. The agent says
 * its watcher is podman (hello's watcher `type`), the hub lists and finds it as podman, checks its
 * container like any other and updates it through the agent, which re-creates it on Podman.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNewKeyFile } from '../../edge-agent/src/keys/key-file';
import { toBase64 } from '../../shared/edge/sign-in';
import { type AgentProcess, signedIn, spawnAgent } from '../support/edge-agent-process';
import { edgeUpdateApi } from '../support/edge-update-bed';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { podmanCli, publishPodmanApp } from '../support/podman/podman-app';
import { startPodman, type TestPodman } from '../support/podman/start-podman';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const AGENT = 'pod-host';

interface WatcherView {
  id: string;
  type: string;
  name: string;
  agent?: string;
}

describe('an edge agent on a Podman host', () => {
  let dir: string;
  let registry: TestRegistry;
  let podman: TestPodman;
  let hub: HubClient;
  let agent: AgentProcess;
  const { json, pending, requestUpdate, settled } = edgeUpdateApi((path, init) => hub.request(path, init), AGENT);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dd-podman-agent-'));
    registry = await startRegistry({ variant: 'plain' });
    podman = await startPodman({ insecureRegistries: [registry.host] });
    const from = await publishPodmanApp(podman, registry, '1.0.0');
    await publishPodmanApp(podman, registry, '2.0.0');
    // Stopped in 2 s (sleep as PID 1 ignores SIGTERM); no network, so the host's is untouched.
    await podmanCli(podman, 'run', '-d', '--stop-timeout', '2', '--name', 'web', '--network', 'none', from);

    const keyFile = join(dir, 'agent.key');
    const key = await writeNewKeyFile(keyFile);
    await writeFile(join(dir, 'authorized_keys'), `${toBase64(key.publicKey)} ${AGENT}\n`);
    hub = await createServerHub({
      DD_EDGE_AUTHORIZED_KEYS: join(dir, 'authorized_keys'),
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
    });
    agent = spawnAgent({
      hubUrl: hub.url as string,
      keyFile,
      name: AGENT,
      env: {
        DD_LOCAL_WATCHER: 'false',
        DD_WATCHER_PM_TYPE: 'podman',
        DD_WATCHER_PM_SOCKET: podman.socketPath,
        DD_EDGE_RECONNECT_MIN_MS: '100',
        DD_EDGE_RECONNECT_MAX_MS: '400',
      },
    });
    await agent.waitForLog(signedIn, 60_000);
  }, 180_000);

  afterAll(async () => {
    await agent?.kill();
    await hub?.close();
    await podman?.stop();
    await registry?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("lists the agent's watcher as podman, found under that type", async () => {
    const { data } = await json<{ data: WatcherView[] }>('/api/v1/watchers');
    expect(data.filter((watcher) => watcher.agent === AGENT)).toEqual([
      expect.objectContaining({ id: 'podman.pm', type: 'podman', name: 'pm', agent: AGENT }),
    ]);
    const types = await json<{ data: { type: string; runtimes: string[] }[] }>('/api/v1/watchers/types');
    expect(types.data.find((each) => each.type === 'podman')?.runtimes).toContain('edge-agent');
  });

  it('checks its container and updates it through the agent, which re-creates it on Podman', async () => {
    const record = await pending('web', { timeoutMs: 60_000, everyMs: 500 });
    expect(record).toMatchObject({
      agent: AGENT,
      watcher: 'pm',
      updateKind: { localValue: '1.0.0', remoteValue: '2.0.0' },
    });
    const oldId = (await podmanCli(podman, 'container', 'inspect', '--format', '{{.Id}}', 'web')).trim();

    const operation = await settled(await requestUpdate(record), 90_000);
    expect(operation).toMatchObject({ status: 'succeeded', agent: AGENT, toVersion: '2.0.0' });
    const [now] = JSON.parse(await podmanCli(podman, 'container', 'inspect', 'web')) as {
      Id: string;
      Config: { Image: string };
      State: { Running: boolean };
    }[];
    expect(now?.Config.Image).toBe(`${registry.host}/podman/app:2.0.0`);
    expect(now?.State.Running).toBe(true);
    expect(now?.Id).not.toBe(oldId);
    // The temporary `web-old-…` container is gone: one web on the host.
    expect((await podmanCli(podman, 'ps', '-a', '--format', '{{.Names}}')).split('\n')).toEqual(['web']);
  }, 150_000);
});
