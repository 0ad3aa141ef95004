/**
 * The hub updating its own container (docs/updates.md "Self-update"), on a real dockerd and a real
 * registry: the hub runs as a container of the project's image, pushed as `…/dockwatch/hub:1.0.0`;
 * a `1.1.0` (the same build, another version label) is found in the registry, the update request
 * is announced on the UI stream as dd:self-update, acknowledged with the dd:connected credentials,
 * and the helper container swaps the hub: the new one answers on the same port with the same state.
 * Then a `1.2.0` whose entry exits at once is rolled back: the old hub answers again.
 *
 * One image build for the file (most of its time); the variants are one-line builds on top of it.
 * The hub runs on the host network, as in images.test.ts: the registry listens on 127.0.0.1 only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { gotoSteady, launchChromium } from '../support/chromium';
import { buildDockwatchImages, type DockwatchImages } from '../support/docker/dockwatch-images';
import { docker, freePort, hubRunArgs, inspect, waitForHttp } from '../support/docker/image-containers';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { dataOf, openSse } from '../support/sse-client';

const HUB = 'dockwatch';
const TERMINAL = ['succeeded', 'rolled-back', 'failed'];

interface SelfUpdateStatus {
  operationId: string;
  status: string;
  phase: string;
  completedAt?: string;
}

/** `FROM base` plus a few lines, built on the test dockerd and pushed as `reference`. */
async function pushVariant(dockerd: TestDockerd, base: string, reference: string, lines: string[]): Promise<void> {
  const context = mkdtempSync(join(tmpdir(), 'dockwatch-variant-'));
  try {
    writeFileSync(join(context, 'Dockerfile'), [`FROM ${base}`, ...lines, ''].join('\n'));
    await docker(dockerd, ['build', '-t', reference, context]);
    await docker(dockerd, ['push', reference]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

describe('self-update of the hub container', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let images: DockwatchImages;
  let repository: string;
  let url: string;
  const api = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
  const json = async <T>(path: string, init?: RequestInit) => (await api(path, init)).json() as Promise<T>;
  const hubContainer = async () =>
    (await json<{ data: Container[] }>('/api/v1/containers')).data.find((container) => container.name === HUB);

  /** The names of the containers of this dockerd named after the hub: the hub, and a helper while one exists. */
  const containersNamedLikeTheHub = async () =>
    (await dockerd.docker.listContainers({ all: true }))
      .map((container) => container.Names[0])
      .filter((name) => name?.includes(HUB));

  /** Polls the unauthenticated status route through the swap (the hub does not answer for a while). */
  async function settledStatus(operationId: string, timeoutMs = 120_000): Promise<SelfUpdateStatus> {
    const deadline = Date.now() + timeoutMs;
    const seen = new Set<string>();
    let last: SelfUpdateStatus | undefined;
    while (Date.now() < deadline) {
      try {
        const response = await fetch(`${url}/api/v1/self-update/${operationId}/status`, {
          signal: AbortSignal.timeout(2_000),
        });
        if (response.status === 200) {
          last = (await response.json()) as SelfUpdateStatus;
          seen.add(last.phase);
          if (TERMINAL.includes(last.status)) return last;
        }
      } catch {
        // The hub is being swapped.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const logs = await dockerd.cli(['logs', '--tail', '60', HUB]);
    throw new Error(
      `self-update ${operationId} not settled (last ${JSON.stringify(last)}, phases ${[...seen]})\n${logs.stdout}${logs.stderr}`,
    );
  }

  /**
   * Whether the hub audited the outcome: it does once it reads the helper's last write, which may
   * come after it started (the new hub answers during its own health gate).
   */
  async function audited(operationId: string, status: string): Promise<boolean> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const audit = await json<{ data: { status?: string; details?: string }[] }>('/api/v1/audit?action=self-update');
      if (audit.data.some((entry) => entry.status === status && entry.details?.includes(operationId))) return true;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return false;
  }

  /** Asks for the update of the hub's own container once the registry check has found it. */
  async function requestSelfUpdate(tag: string): Promise<string> {
    expect((await api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
    const self = await hubContainer();
    if (!JSON.stringify(self).includes(tag)) {
      // Seen once in CI after the rollback: the watch answered 200 and the record was as the hub
      // had it before the rollback (its checkedAt too). What the watchers and the hub said then:
      const watchers = await (await api('/api/v1/watchers')).text();
      const logs = await dockerd.cli(['logs', '--tail', '80', HUB]);
      throw new Error(
        `the watch did not find ${tag}: ${JSON.stringify(self)}\nwatchers: ${watchers}\n${logs.stdout}${logs.stderr}`,
      );
    }
    expect(self).toMatchObject({ updateAvailable: true });
    const response = await api(`/api/v1/containers/${self?.id}/update`, { method: 'POST' });
    expect({ status: response.status, body: await response.clone().text() }).toMatchObject({ status: 202 });
    return ((await response.json()) as { operationId: string }).operationId;
  }

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    images = await buildDockwatchImages(dockerd);
    repository = `${registry.host}/dockwatch/hub`;
    await docker(dockerd, ['tag', images.hub, `${repository}:1.0.0`]);
    await docker(dockerd, ['push', `${repository}:1.0.0`]);
    // The same build with another version label: a new image id, so a real swap.
    await pushVariant(dockerd, images.hub, `${repository}:1.1.0`, ['LABEL org.opencontainers.image.version=1.1.0']);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    await docker(
      dockerd,
      hubRunArgs(dockerd, {
        name: HUB,
        port,
        image: `${repository}:1.0.0`,
        // Any key declares the Docker action trigger docker.update that updates go through.
        env: { DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '60' },
      }),
    );
    await waitForHttp(dockerd, HUB, `${url}/health`);
  }, 300_000);

  afterAll(async () => {
    images?.cleanup();
    await Promise.all([dockerd?.stop(), registry?.stop()]);
  });

  it('answers 404 for an unknown operation and ignores an ack nothing waits for', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await api(`/api/v1/self-update/${unknown}/status`)).status).toBe(404);
    const ack = await api(`/api/v1/events/ui/self-update/${unknown}/ack`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'a', clientToken: 'b' }),
    });
    expect(ack.status).toBe(202);
    expect(await ack.json()).toEqual({ status: 'ignored', operationId: unknown });
  });

  it('announces dd:self-update, takes the ack, swaps to 1.1.0 and answers on the same port with the same state', async () => {
    const before = await inspect(dockerd, HUB);
    const stream = await openSse(api, '/api/v1/events/ui');
    const connected = dataOf<{ clientId: string; clientToken: string }>(await stream.nextOfType('dd:connected'));
    const settingsBefore = await json<unknown>('/api/v1/settings');

    const operationId = await requestSelfUpdate('1.1.0');
    const announcement = await stream.nextOfType('dd:self-update', 15_000);
    const announced = dataOf<{ opId: string; requiresAck: boolean; ackTimeoutMs: number; startedAt: string }>(
      announcement,
    );
    expect(announced).toMatchObject({ opId: operationId, requiresAck: true });
    expect(announced.ackTimeoutMs).toBeGreaterThan(0);
    const ack = (body: unknown) =>
      api(`/api/v1/events/ui/self-update/${operationId}/ack`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await ack({ clientId: connected.clientId })).status).toBe(400);
    const wrong = await ack({ clientId: connected.clientId, clientToken: `${connected.clientToken}x` });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ status: 'rejected', operationId });
    // A client that connected after the announcement was not told: its own valid credentials do not count.
    const late = await openSse(api, '/api/v1/events/ui');
    const lateClient = dataOf<{ clientId: string; clientToken: string }>(await late.nextOfType('dd:connected'));
    const notBound = await ack(lateClient);
    expect(notBound.status).toBe(403);
    expect(await notBound.json()).toEqual({ status: 'rejected', operationId });
    await late.close();
    const accepted = await ack(connected);
    const ackedAt = performance.now();
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ status: 'accepted', operationId });
    // The old hub closes the stream as it stops.
    expect(await stream.ended).toMatch(/done|error/);

    const settled = await settledStatus(operationId);
    expect(settled).toMatchObject({ operationId, status: 'succeeded', phase: 'succeeded' });
    console.info(`self-update: ack to succeeded in ${Math.round(performance.now() - ackedAt)} ms`);
    expect(settled.completedAt).toEqual(expect.any(String));

    const after = await inspect(dockerd, HUB);
    expect(after.Id).not.toBe(before.Id);
    expect(after.Config.Image).toBe(`${repository}:1.1.0`);
    expect(after.Config.Labels['org.opencontainers.image.version']).toBe('1.1.0');
    expect((await api('/health')).status).toBe(200);
    // The UI's stream resumes from its last id: another boot, so it is told to reload everything.
    const resumed = await openSse(api, '/api/v1/events/ui', { 'last-event-id': announcement.id ?? '' });
    await resumed.nextOfType('dd:connected');
    expect(dataOf(await resumed.nextOfType('dd:resync-required'))).toEqual({ reason: 'boot-changed' });
    await resumed.close();
    // Same store: settings, the audit trail of the swap, and the operation's state.
    expect(await json('/api/v1/settings')).toEqual(settingsBefore);
    expect(await audited(operationId, 'succeeded')).toBe(true);
    // The new hub lists itself on the new image; the old container and the helper are gone.
    await api('/api/v1/watchers/docker/local/inventory', { method: 'POST' });
    await expect.poll(containersNamedLikeTheHub).toEqual([`/${HUB}`]);
    const self = await hubContainer();
    expect(self?.id).toBe(after.Id);
    // The container's history on the new hub holds the self-update, settled.
    const history = await json<{ data: { id: string; status: string }[] }>(
      `/api/v1/containers/${self?.id}/update-operations`,
    );
    expect(history.data).toContainEqual(expect.objectContaining({ id: operationId, status: 'succeeded' }));
  }, 240_000);

  it('rolls back a new image whose entry exits at once: the old hub answers again', async () => {
    await pushVariant(dockerd, `${repository}:1.1.0`, `${repository}:1.2.0`, [
      'LABEL org.opencontainers.image.version=1.2.0',
      'ENTRYPOINT ["node", "-e", "process.exit(3)"]',
    ]);
    const before = await inspect(dockerd, HUB);
    const operationId = await requestSelfUpdate('1.2.0');
    const requestedAt = performance.now();
    const settled = await settledStatus(operationId);
    console.info(`self-update: request to rolled-back in ${Math.round(performance.now() - requestedAt)} ms`);
    expect(settled).toMatchObject({ operationId, status: 'rolled-back', phase: 'rolled-back' });

    await waitForHttp(dockerd, HUB, `${url}/health`);
    const after = await inspect(dockerd, HUB);
    expect(after.Id).toBe(before.Id);
    expect(after.Config.Image).toBe(`${repository}:1.1.0`);
    expect(after.State.Running).toBe(true);
    // The helper writes the outcome, then exits, and Docker removes it (AutoRemove) a moment later.
    await expect.poll(containersNamedLikeTheHub).toEqual([`/${HUB}`]);
    expect(await audited(operationId, 'rolled-back')).toBe(true);
    // The history shows it: what the automatic policy reads so as not to try a failed target again.
    // Polled: on a loaded machine (CI) the old hub, started again, answered /health before its
    // records were all read back once (an empty history seen once); it must show it soon after.
    await expect
      .poll(
        async () =>
          (await json<{ data: { id: string; status: string }[] }>(`/api/v1/containers/${after.Id}/update-operations`))
            .data,
        { timeout: 15_000, interval: 250 },
      )
      .toContainEqual(expect.objectContaining({ id: operationId, status: 'rolled-back' }));
  }, 240_000);
  it('the web UI acks it, says the hub is restarting, and says when the new version answers', async () => {
    await pushVariant(dockerd, `${repository}:1.1.0`, `${repository}:1.3.0`, [
      'LABEL org.opencontainers.image.version=1.3.0',
    ]);
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext()).newPage();
      // The page's stream open: the announcement is bound to it alone.
      const streaming = page.waitForResponse((response) => response.url().includes('/api/v1/events/ui'));
      await gotoSteady(page, `${url}/`);
      expect((await streaming).status()).toBe(200);
      const acked = page.waitForResponse((response) => /\/self-update\/[^/]+\/ack$/.test(response.url()), {
        timeout: 30_000,
      });
      const operationId = await requestSelfUpdate('1.3.0');
      const ack = await acked;
      expect(ack.url()).toContain(operationId);
      expect({ status: ack.status(), body: await ack.json() }).toEqual({
        status: 202,
        body: { status: 'accepted', operationId },
      });
      await page.locator('[data-self-update="restarting"]').waitFor({ timeout: 30_000 });
      const done = page.locator('[data-self-update="succeeded"]');
      await done.waitFor({ timeout: 120_000 });
      expect(await done.textContent()).toContain('restarted on its new version');
      expect((await inspect(dockerd, HUB)).Config.Image).toBe(`${repository}:1.3.0`);
    } finally {
      await browser.close();
    }
  }, 240_000);
});
