/**
 * `container.releaseNotes` in notification templates (docs/release-notes.md): a hub in memory, the
 * GitHub release API of test/support/release-api-server.ts, an http trigger delivering to a real
 * receiver. The notes come from the release notes cache only: once the container's release notes
 * were read (the route fills the cache), an update-available notification carries the target's
 * title, URL and excerpt; for a repository never read they are empty, and the forge is not asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import { createMemoryHub, type HubClient } from '../../support/hub-harness';
import { type NotificationReceiver, startNotificationReceiver } from '../../support/notification-receiver';
import { type ReleaseApiServer, startReleaseApiServer } from '../../support/release-api-server';

const id = (n: number) => n.toString(16).padStart(64, '0');

function pendingUpdate(n: number, repository: string): Container {
  const record = containerRecord({
    id: id(n),
    name: `app${n}`,
    labels: { 'org.opencontainers.image.source': `https://github.com/${repository}` },
  });
  return {
    ...record,
    image: { ...record.image, registry: { url: 'ghcr.io' }, name: repository, tag: { value: '1.0.0', semver: true } },
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '1.1.0' },
  };
}

/** The watch that finds the update: the record goes from no update to the pending one. */
const found = (container: Container) => ({
  previous: { ...container, updateAvailable: false, updateKind: { kind: 'unknown' as const } },
  next: { ...container, checkedAt: new Date().toISOString() },
});

const TEMPLATE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a notification template, rendered by the hub
  '${container.name}: [${container.releaseNotes.title}] <${container.releaseNotes.url}> ${container.releaseNotes.excerpt} (${container.releaseNotes.tag})';

describe('release notes in notification templates', () => {
  let forge: ReleaseApiServer;
  let receiver: NotificationReceiver;
  let client: HubClient;

  beforeAll(async () => {
    forge = await startReleaseApiServer();
    forge.github('acme/app', [
      {
        tag: 'v1.1.0',
        name: 'App 1.1.0',
        body: `## Features\n\n- **dark mode** for the [dashboard](https://example.test/d)\n- ${'faster start-up '.repeat(40)}`,
        date: '2026-03-01T10:00:00Z',
      },
      { tag: 'v1.0.0', name: 'App 1.0.0', body: 'First', date: '2026-02-01T10:00:00Z' },
    ]);
    forge.github('acme/other', [{ tag: 'v1.1.0', name: 'Other 1.1.0', body: 'x', date: '2026-03-01T10:00:00Z' }]);
    receiver = await startNotificationReceiver();
    client = await createMemoryHub({
      DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/ops`,
      DD_RELEASE_NOTES_GITHUB_API_URL: forge.url,
    });
    const patched = await client.request('/api/v1/notifications/update-available', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ templates: { 'http.ops': { simpleBody: TEMPLATE } } }),
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
  });
  afterAll(async () => {
    await client?.close();
    await receiver?.close();
    await forge?.close();
  });

  it("carries the target's cached title, URL and excerpt", async () => {
    const app = pendingUpdate(1, 'acme/app');
    await client.hub.parts.containers.put(app);
    // Reading the notes fills the cache, as the UI's detail page or the update preview do.
    const notes = await client.request(`/api/v1/containers/${app.id}/release-notes`);
    expect(await notes.json()).toMatchObject({ status: 'ok', release: { tag: 'v1.1.0' } });
    const asked = forge.requests.length;

    await client.hub.parts.notifications.inventoryApplied([found(app)]);
    const [delivery] = await receiver.waitFor(1);
    const text = delivery?.text ?? '';
    expect(text).toContain('app1: [App 1.1.0] <https://github.com/acme/app/releases/tag/v1.1.0> Features dark mode');
    expect(text).toContain('for the dashboard faster start-up faster start-up');
    expect(text).toContain('… (v1.1.0)');
    expect(text).not.toMatch(/##|\*\*|\]\(/);
    // The excerpt is short: the body is over 600 characters.
    const excerpt = /> (.*) \(v1\.1\.0\)/.exec(text)?.[1] ?? '';
    expect(excerpt.length).toBeGreaterThan(200);
    expect(excerpt.length).toBeLessThanOrEqual(281);
    // Rendered from the cache: the forge was not asked again.
    expect(forge.requests.length).toBe(asked);
  });

  it('renders them empty when the repository was never read, without asking the forge', async () => {
    const other = pendingUpdate(2, 'acme/other');
    await client.hub.parts.containers.put(other);
    const asked = forge.requests.length;
    const before = receiver.received.length;
    await client.hub.parts.notifications.inventoryApplied([found(other)]);
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(before + 1);
    expect(receiver.received.at(-1)?.text).toContain('app2: [] <>  ()');
    expect(forge.requests.length).toBe(asked);
  });
});
