/**
 * A warm watch cycle inspects only the containers that changed (issue 18): the watcher keeps what
 * the Engine said of each container while its event stream is open, and an event about a container
 * (stop, start, rename...) drops that entry. Real dockerd, real event stream; the Engine client is
 * the real one, wrapped only to count inspects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hub } from '../../hub/src/compose-hub';
import type { DockerHost } from '../../shared/docker/docker-host';
import { delegatingHost } from '../support/docker/delegating-host';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { createMemoryHub } from '../support/hub-harness';

/** The real client, counting container inspects; everything else (events included) passes through. */
function countingInspects(real: DockerHost) {
  const inspected: string[] = [];
  let closeEvents: (() => void) | undefined;
  const host = delegatingHost(real, {
    eventsCoverChanges: real.eventsCoverChanges === true,
    inspectContainer: (id) => {
      inspected.push(id);
      return real.inspectContainer(id);
    },
    subscribeEvents: (handlers) => {
      const subscription = real.subscribeEvents(handlers);
      // Ends the stream as a dying Engine connection would: the watcher is told, and reconnects.
      closeEvents = () => {
        subscription.close();
        handlers.onClose(new Error('event stream cut by the test'));
      };
      return subscription;
    },
  });
  return { host, inspected, cutEvents: () => closeEvents?.() };
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('warm watch cycles on a real dockerd', () => {
  let dockerd: TestDockerd;
  let hub: Hub;
  let rig: ReturnType<typeof countingInspects>;
  const ids: string[] = [];

  beforeAll(async () => {
    dockerd = await startDockerd();
    await importBusyboxImage(dockerd.docker, { repository: 'local/warm', tag: '1.0.0', cmd: ['sleep', '3600'] });
    for (let i = 0; i < 5; i++)
      ids.push(await runContainer(dockerd.docker, { name: `warm-${i}`, image: 'local/warm:1.0.0' }));
    rig = countingInspects(dockerd.dockerHost);
    const client = await createMemoryHub(
      { DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath, DD_WATCHER_LOCAL_JITTER: '0', DD_WATCHER_LOCAL_WATCHALL: 'true' },
      { dockerHostFor: () => rig.host },
    );
    hub = client.hub;
    await waitFor(() => hub.parts.fleet.all()[0]?.lastRunAt, 20_000);
  }, 90_000);
  afterAll(async () => {
    await hub?.stop();
    await dockerd?.stop();
  });

  const watcher = () => {
    const found = hub.parts.fleet.all()[0];
    if (!found) throw new Error('no watcher');
    return found;
  };
  const record = (id: string) => hub.parts.containers.get(id);

  it('is a real Engine client that says its events cover every change', () => {
    expect(dockerd.dockerHost.eventsCoverChanges).toBe(true);
  });

  it('inspects nothing when nothing changed, and still returns every record', async () => {
    rig.inspected.length = 0;
    const result = await watcher().watch();
    expect(rig.inspected).toEqual([]);
    expect(result.authoritative).toBe(true);
    expect(result.records.map((c) => c.name).sort()).toEqual(['warm-0', 'warm-1', 'warm-2', 'warm-3', 'warm-4']);
  });

  it('inspects only the container an event was about, and records its new state', async () => {
    const stopped = ids[1] as string;
    await dockerd.docker.getContainer(stopped).stop({ t: 0 });
    // Each event refresh inspects it (kill, die and stop may come in more than one debounce window
    // on a loaded machine); once they are over, a cycle inspects nothing.
    await waitFor(() => (record(stopped)?.status === 'exited' ? true : undefined), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    rig.inspected.length = 0;
    await watcher().watch();
    expect(rig.inspected).toEqual([]);
    expect(record(stopped)?.status).toBe('exited');
    await dockerd.docker.getContainer(stopped).start();
    await waitFor(() => (record(stopped)?.status === 'running' ? true : undefined), 10_000);
    // Only the container the events were about was inspected again.
    expect(new Set(rig.inspected)).toEqual(new Set([stopped]));
  });

  it('inspects a container whose listing disagrees with what it knows, even before the event is applied', async () => {
    const renamed = ids[2] as string;
    rig.inspected.length = 0;
    await dockerd.docker.getContainer(renamed).rename({ name: 'warm-renamed' });
    await watcher().watch();
    expect(rig.inspected).toContain(renamed);
    expect(record(renamed)?.name).toBe('warm-renamed');
  });

  it('sees a container re-created under its name with another label, and inspects none of the others', async () => {
    const old = ids[3] as string;
    rig.inspected.length = 0;
    await dockerd.docker.getContainer(old).remove({ force: true });
    const recreated = await runContainer(dockerd.docker, {
      name: 'warm-3',
      image: 'local/warm:1.0.0',
      labels: { 'dd.display.name': 'warm three, relabelled' },
    });
    ids[3] = recreated;
    await watcher().watch();
    expect(record(recreated)?.displayName).toBe('warm three, relabelled');
    expect(record(old)).toBeUndefined();
    // Only the re-created container (and the removed one, through its events) was asked about.
    expect(rig.inspected.filter((id) => id !== recreated && id !== old)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    rig.inspected.length = 0;
    await watcher().watch();
    expect(rig.inspected).toEqual([]);
    expect(record(recreated)?.displayName).toBe('warm three, relabelled');
  });

  it('inspects everything again after the event stream was cut, since events may have been lost', async () => {
    rig.cutEvents();
    rig.inspected.length = 0;
    await watcher().watch();
    expect([...rig.inspected].sort()).toEqual([...ids].sort());
    // The stream reopens after its backoff (about a second); from then on, caching resumes.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await watcher().watch();
    rig.inspected.length = 0;
    await watcher().watch();
    expect(rig.inspected).toEqual([]);
  });
});
