/**
 * A warm watch cycle inspects only the containers that changed (issue 18): the watcher keeps what
 * the Engine said of each container while its event stream is open, and an event about a container
 * (stop, start, rename...) drops that entry. A cycle whose every record the stream kept so does not
 * wait for Docker's listing to check them: the listing, asked for when the cycle begins, runs while
 * the registry answers (issue 30), and a container it shows otherwise (an event lost, or not yet
 * come) is observed before the watch answers. Real dockerd, real event stream; the Engine
 * client is the real one, wrapped only to count inspects and listings (and, in one test, to lose events).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hub } from '../../hub/src/compose-hub';
import type { DockerHost } from '../../shared/docker/docker-host';
import { delegatingHost } from '../support/docker/delegating-host';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { createMemoryHub } from '../support/hub-harness';

/**
 * The real client, counting container inspects and noting listings; everything else (events
 * included) passes through, unless `dropEvents` is set: then events are lost on the way, as a
 * bug anywhere between the Engine and the watcher would lose them.
 */
function countingInspects(real: DockerHost, onList: () => void) {
  const inspected: string[] = [];
  const control = { dropEvents: false };
  let closeEvents: (() => void) | undefined;
  const host = delegatingHost(real, {
    eventsCoverChanges: real.eventsCoverChanges === true,
    inspectContainer: (id) => {
      inspected.push(id);
      return real.inspectContainer(id);
    },
    listContainers: (all) => {
      onList();
      return real.listContainers(all);
    },
    subscribeEvents: (handlers) => {
      const subscription = real.subscribeEvents({
        onEvent: (event) => {
          if (!control.dropEvents) handlers.onEvent(event);
        },
        onClose: handlers.onClose,
      });
      // Ends the stream as a dying Engine connection would: the watcher is told, and reconnects.
      closeEvents = () => {
        subscription.close();
        handlers.onClose(new Error('event stream cut by the test'));
      };
      return subscription;
    },
  });
  return { host, inspected, control, cutEvents: () => closeEvents?.() };
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
  const listings: (number | undefined)[] = [];

  beforeAll(async () => {
    dockerd = await startDockerd();
    await importBusyboxImage(dockerd.docker, { repository: 'local/warm', tag: '1.0.0', cmd: ['sleep', '3600'] });
    for (let i = 0; i < 5; i++)
      ids.push(await runContainer(dockerd.docker, { name: `warm-${i}`, image: 'local/warm:1.0.0' }));
    // Each listing notes whether the watcher's last cycle had already ended when it was asked for.
    rig = countingInspects(dockerd.dockerHost, () => listings.push(hub?.parts.fleet.all()[0]?.lastRunAt));
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

  it('lists the containers once, from the start of the cycle, not after its end', async () => {
    const before = watcher().lastRunAt;
    listings.length = 0;
    await watcher().watch();
    const ended = watcher().lastRunAt;
    expect(ended).not.toBe(before);
    // One listing, asked for before the cycle recorded its end: its time overlaps the registry's
    // instead of adding to the answer's (issue 30).
    expect(listings).toEqual([before]);
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

  it("finds a change whose event was lost in the cycle's listing", async () => {
    const renamed = ids[2] as string;
    rig.control.dropEvents = true;
    try {
      await dockerd.docker.getContainer(renamed).rename({ name: 'warm-renamed' });
      rig.inspected.length = 0;
      await watcher().watch();
      // The cycle's listing disagrees with what the watcher kept: before the watch
      // answers, the container is inspected and its record refreshed as if the event had come.
      expect(record(renamed)?.name).toBe('warm-renamed');
      expect(rig.inspected).toEqual([renamed]);
    } finally {
      rig.control.dropEvents = false;
    }
  });

  it('brings back with the next cycle a record deleted through the API, the container still being there', async () => {
    const kept = ids[4] as string;
    await hub.parts.containers.remove(kept);
    expect(record(kept)).toBeUndefined();
    await watcher().watch();
    expect(record(kept)?.name).toBe('warm-4');
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
    // Watched at once: whether or not its events (destroy, create, start) came yet, the answer has it.
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
