import { containerRecord, withImage } from './container-fixture';
import type { HubClient } from './hub-harness';

// The records and helpers both webhook suites (test/http/webhooks/) use: the same fleet, so a
// difference between what the two families match is the routes', not the fixtures'.

export const post = (headers: Record<string, string> = {}, body?: string): RequestInit => ({
  method: 'POST',
  headers,
  ...(body !== undefined && { body }),
});

export const web = containerRecord({ id: '1'.repeat(64), name: 'web', watcher: 'local' });
export const webEast = containerRecord({ id: '2'.repeat(64), name: 'web', watcher: 'east' });
export const webNas = containerRecord({ id: '3'.repeat(64), name: 'web', watcher: 'local', agent: 'nas' });
export const optedOut = containerRecord({
  id: '4'.repeat(64),
  name: 'private',
  webhookEnabled: false,
  labels: { 'dd.webhook.enabled': 'false' },
});
export const app = withImage(containerRecord({ id: '5'.repeat(64), name: 'app' }), '127.0.0.1:5000', 'team/app');
export const pending = {
  updateAvailable: true,
  updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '1.1.0', semverDiff: 'minor' },
} as const;
export const outdated = {
  ...withImage(containerRecord({ id: '6'.repeat(64), name: 'outdated' }), '127.0.0.1:5000', 'team/app'),
  ...pending,
};
export const outdatedOnAgent = { ...containerRecord({ id: '7'.repeat(64), name: 'remote', agent: 'nas' }), ...pending };

export async function seed(client: HubClient): Promise<void> {
  for (const record of [web, webEast, webNas, optedOut, app, outdated, outdatedOnAgent])
    await client.hub.parts.containers.put(record);
}

export async function metric(client: HubClient, line: RegExp): Promise<string | undefined> {
  const text = await (await client.request('/metrics')).text();
  return text.split('\n').find((candidate) => line.test(candidate));
}
