import { startDockerd, type TestDockerd } from '../../test/support/docker/start-dockerd';
import { type NotificationReceiver, startNotificationReceiver } from '../../test/support/notification-receiver';
import { type SigningRelay, startSigningRelay } from '../../test/support/registry/signing-relay';
import { startRegistry, type TestRegistry } from '../../test/support/registry/start-registry';
import { publishBuild } from './docker-fleet';
import { type HubProcess, startHubProcess } from './hub-process';

const SECRET = 'bench-registry-webhook-secret';

/**
 * What the webhook benchmarks share: a real dockerd, Debian's docker-registry sending its own
 * notifications to a relay that signs them for the hub's registry webhook, an HTTP notification
 * receiver, and the hub as its own process watching the daemon.
 */
export interface WebhookRig {
  dockerd: TestDockerd;
  registry: TestRegistry;
  relay: SigningRelay;
  receiver: NotificationReceiver;
  hub: HubProcess;
  /** `<registry>/<repository>:<tag>`. */
  ref(repository: string, tag: string): string;
  /** A new build of the repository, pushed with the docker CLI; resolves when `docker push` exits. */
  publish(repository: string, tag: string): Promise<void>;
  /** Resolves once the watcher has finished a cycle (its run shortly after start). */
  firstCycle(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookRig(options: {
  hubEnv: (receiverUrl: string) => Record<string, string>;
  before?: (rig: Omit<WebhookRig, 'hub' | 'firstCycle'>) => Promise<void>;
}): Promise<WebhookRig> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const [dockerd, relay, receiver] = await Promise.all([
      startDockerd(),
      startSigningRelay(SECRET),
      startNotificationReceiver(),
    ]);
    cleanups.push(
      () => dockerd.stop(),
      () => relay.close(),
      () => receiver.close(),
    );
    const registry = await startRegistry({
      variant: 'plain',
      notifications: [
        {
          name: 'hub',
          url: relay.url,
          timeout: '2s',
          threshold: 3,
          backoff: '250ms',
          ignoredmediatypes: ['application/octet-stream'],
          ignore: { actions: ['pull'] },
        },
      ],
    });
    cleanups.push(() => registry.stop());
    const ref = (repository: string, tag: string) => `${registry.host}/${repository}:${tag}`;
    const publish = (repository: string, tag: string) =>
      publishBuild(dockerd, registry.host, repository, `build-${tag}`, [tag]);
    await options.before?.({ dockerd, registry, relay, receiver, ref, publish, close });
    const hub = await startHubProcess({
      env: {
        DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
        DD_WATCHER_LOCAL_JITTER: '0',
        // Nothing scheduled while measuring: the only cycle is the one shortly after start.
        DD_WATCHER_LOCAL_CRON: '0 0 1 1 *',
        DD_SERVER_WEBHOOK_ENABLED: 'true',
        DD_SERVER_WEBHOOK_SECRET: SECRET,
        ...options.hubEnv(receiver.url),
      },
      startTimeoutMs: 60_000,
    });
    cleanups.push(() => hub.stop());
    relay.target = `${hub.url}/api/v1/webhooks/registry`;
    const firstCycle = async (timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const watchers = (await (await fetch(`${hub.url}/api/v1/watchers`)).json()) as {
          data: { metadata: { lastRunAt?: string } }[];
        };
        if (watchers.data[0]?.metadata.lastRunAt !== undefined) return;
        if (Date.now() > deadline) throw new Error('webhook-rig: the watcher ran no cycle in time');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    return { dockerd, registry, relay, receiver, hub, ref, publish, firstCycle, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
