/**
 * DD_CONFIG_FILE (docs/configuration-file.md) on real components: the hub as `npm start` runs it (a
 * process of its own), a dockerd, and a notification receiver on loopback. A write through the API
 * changes a watcher's cron and a trigger's URL: the reload re-creates both while a UI event stream
 * opened before stays open and receives what the new watcher sees; the secrets the read masked are
 * kept in the file, the previous file is the backup. A bad file stops start-up, naming file and key.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type HubProcess, spawnHub, startHubProcess } from '../support/hub-process';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';
import { dataOf, openSse, type SseStream } from '../support/sse-client';

// A closed port: the registry lookups of the test image fail at once.
const IMAGE = '127.0.0.1:9/test/app';
const METRICS_TOKEN = 'metrics-token-3f9a1c77';

const fileText = (socket: string, receiver: string) =>
  [
    '# dockwatch test configuration: comments stay through writes',
    'DD_LOG_LEVEL: debug # the environment says info, and wins',
    `DD_SERVER_METRICS_TOKEN: ${METRICS_TOKEN}`,
    'DD_WATCHER:',
    '  dock:',
    `    socket: ${socket}`,
    '    cron: "0 * * * *"',
    '    jitter: 0',
    'DD_NOTIFICATION:',
    '  http:',
    '    ops:',
    `      url: ${receiver}/before`,
    '',
  ].join('\n');

describe('the configuration file on a hub process', () => {
  let dockerd: TestDockerd;
  let receiver: NotificationReceiver;
  let dir: string;
  let file: string;
  let hub: HubProcess | undefined;
  const api = (path: string, init?: RequestInit) => fetch(`${hub?.url}/api/v1${path}`, init);
  const send = (method: string, body?: unknown): RequestInit => ({
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  async function json<T = Record<string, unknown>>(path: string, init?: RequestInit): Promise<T> {
    const response = await api(path, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }
  const runTrigger = (type: string, name: string) => api(`/triggers/${type}/${name}`, send('POST', {}));

  beforeAll(async () => {
    [dockerd, receiver] = await Promise.all([startDockerd(), startNotificationReceiver()]);
    dir = await mkdtemp(join(tmpdir(), 'hub-config-file-'));
    file = join(dir, 'hub.yaml');
    await importBusyboxImage(dockerd.docker, { repository: IMAGE, tag: '1.0.0', cmd: ['sleep', '3600'] });
    await runContainer(dockerd.docker, { name: 'first', image: `${IMAGE}:1.0.0` });
    await writeFile(file, fileText(dockerd.socketPath, receiver.url));
    hub = await startHubProcess({
      DD_CONFIG_FILE: file,
      DD_STORE_DRIVER: 'memory',
      DD_LOCAL_WATCHER: 'false',
      DD_REGISTRY_TIMEOUT: '2',
    });
  }, 90_000);

  afterAll(async () => {
    await hub?.kill();
    await Promise.all([dockerd?.stop(), receiver?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads each variable with its source, the file text with its secrets masked', async () => {
    const view = await json<{
      file: { path: string; writable: boolean; content: string };
      variables: { name: string; value?: string; source: string }[];
    }>('/config');
    expect(view.file.path).toBe(file);
    expect(view.file.writable).toBe(true);
    expect(view.file.content).toContain('# dockwatch test configuration');
    expect(view.file.content).not.toContain(METRICS_TOKEN);
    expect(view.file.content).not.toContain('/before');
    const byName = new Map(view.variables.map((variable) => [variable.name, variable]));
    expect(byName.get('DD_LOG_LEVEL')).toEqual({ name: 'DD_LOG_LEVEL', value: 'info', source: 'env' });
    expect(byName.get('DD_WATCHER_DOCK_CRON')).toEqual({
      name: 'DD_WATCHER_DOCK_CRON',
      value: '0 * * * *',
      source: 'file',
    });
    expect(byName.get('DD_SERVER_METRICS_TOKEN')).toEqual({
      name: 'DD_SERVER_METRICS_TOKEN',
      value: '***',
      source: 'file',
    });
    expect(byName.get('DD_AUDIT_MAX_ENTRIES')?.source).toBe('default');
    expect(byName.get('DD_CONFIG_FILE')).toEqual({ name: 'DD_CONFIG_FILE', value: file, source: 'env' });
    // The file's own variable is one the hub reads: no "unknown variable" warning names it.
    expect(hub?.stdout.join('\n')).not.toContain('unknown configuration variables');
  });

  it('a write changes the cron and the trigger URL without dropping a UI event stream', async () => {
    const stream: SseStream = await openSse((path, init) => fetch(`${hub?.url}${path}`, init), '/api/v1/events/ui');
    try {
      expect(dataOf<{ clientId: string }>(await stream.nextOfType('dd:connected')).clientId).toBeTruthy();
      await waitFor(async () =>
        (await json<{ data: { name: string }[] }>('/containers')).data.some((c) => c.name === 'first'),
      );
      expect((await runTrigger('http', 'ops')).status).toBe(200);
      expect((await receiver.waitFor(1))[0]?.path).toMatch(/\/before$/);

      // What a UI does: read, change, send back; the masked secrets are sent back as masks.
      const view = await json<{ file: { content: string } }>('/config');
      const doc = parseDocument(view.file.content);
      doc.setIn(['DD_WATCHER', 'dock', 'cron'], '*/5 * * * *');
      doc.setIn(['DD_NOTIFICATION', 'http', 'ops', 'url'], `${receiver.url}/after`);
      doc.set('DD_AUDIT_MAX_ENTRIES', 500);
      doc.set('DD_REGISTRY_CUSTOM_MIRROR_URL', 'http://127.0.0.1:9');
      const written = await json<{ applied: string[]; restartRequired: string[]; backup: string }>(
        '/config',
        send('PUT', { content: doc.toString() }),
      );
      expect(written).toEqual({
        applied: ['DD_NOTIFICATION_HTTP_OPS_URL', 'DD_REGISTRY_CUSTOM_MIRROR_URL', 'DD_WATCHER_DOCK_CRON'],
        restartRequired: ['DD_AUDIT_MAX_ENTRIES'],
        backup: `${file}.bak`,
      });

      // The file holds the kept secret and the new values; the backup is the file as it was.
      const onDisk = await readFile(file, 'utf8');
      expect(parse(onDisk).DD_SERVER_METRICS_TOKEN).toBe(METRICS_TOKEN);
      expect(onDisk).toContain(`${receiver.url}/after`);
      expect(onDisk).toContain('# dockwatch test configuration');
      expect(await readFile(`${file}.bak`, 'utf8')).toBe(fileText(dockerd.socketPath, receiver.url));
      // The metrics token still opens /metrics: the secret was not replaced by its mask.
      const metrics = await fetch(`${hub?.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(metrics.status).toBe(200);
      await metrics.body?.cancel();

      const watchers = await json<{ data: { name: string; configuration: { cron: string } }[] }>('/watchers');
      expect(watchers.data.find((watcher) => watcher.name === 'dock')?.configuration.cron).toBe('*/5 * * * *');
      expect((await runTrigger('http', 'ops')).status).toBe(200);
      expect((await receiver.waitFor(2))[1]?.path).toMatch(/\/after$/);
      const registries = await json<{ data: { id: string; configured: boolean }[] }>('/registries');
      expect(registries.data.find((registry) => registry.id === 'custom.mirror')?.configured).toBe(true);

      // The stream opened before the reload receives what the re-created watcher sees now.
      await runContainer(dockerd.docker, { name: 'second', image: `${IMAGE}:1.0.0` });
      const deadline = Date.now() + 20_000;
      for (;;) {
        const event = await stream.next(Math.max(1, deadline - Date.now()));
        if (event.data.includes('"second"')) break;
      }
      expect(await Promise.race([stream.ended, new Promise((resolve) => setTimeout(() => resolve('open'), 100))])).toBe(
        'open',
      );
      // The change that waits for a restart is reported by a read too.
      expect((await json<{ restartRequired: string[] }>('/config')).restartRequired).toEqual(['DD_AUDIT_MAX_ENTRIES']);
    } finally {
      await stream.close();
    }
  }, 60_000);

  it('the editors add and remove one trigger and one watcher through the file', async () => {
    const added = await json<{ applied: string[] }>(
      '/config/triggers/http/late',
      send('PUT', { values: { url: `${receiver.url}/late` } }),
    );
    expect(added.applied).toEqual(['DD_NOTIFICATION_HTTP_LATE_URL']);
    const before = receiver.received.length;
    expect((await runTrigger('http', 'late')).status).toBe(200);
    expect((await receiver.waitFor(before + 1))[before]?.path).toMatch(/\/late$/);

    const removed = await json<{ applied: string[] }>('/config/triggers/http/ops', send('DELETE'));
    expect(removed.applied).toEqual(['DD_NOTIFICATION_HTTP_OPS_URL']);
    expect((await runTrigger('http', 'ops')).status).toBe(404);
    expect((await api('/config/triggers/http/ops', send('DELETE'))).status).toBe(404);

    // A masked value keeps the secret the file holds; a watcher's editor replaces all its keys.
    await json('/config/watchers/dock', send('PUT', { values: { socket: dockerd.socketPath, cron: '*/7 * * * *' } }));
    const watcher = (
      await json<{ data: { name: string; configuration: { cron: string; jitter: number } }[] }>('/watchers')
    ).data.find((each) => each.name === 'dock');
    expect(watcher?.configuration).toMatchObject({ cron: '*/7 * * * *' });
    const refused = await api('/config/watchers/dock', send('PUT', { values: { socket: 'relative/path' } }));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('DD_WATCHER_DOCK_SOCKET');
    expect(await readFile(file, 'utf8')).toContain('*/7 * * * *');
    expect(await readFile(file, 'utf8')).toContain(METRICS_TOKEN);
  }, 30_000);
});

describe('a bad configuration file at start-up', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-config-bad-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const [label, text, key] of [
    ['a value its schema refuses', 'DD_AUDIT_RETENTION_DAYS: forever\n', 'DD_AUDIT_RETENTION_DAYS'],
    ['a value that is not a scalar', 'DD_WATCHER:\n  x:\n    cron: [1, 2]\n', 'DD_WATCHER_X_CRON'],
    [
      'a notification trigger of no known type',
      'DD_NOTIFICATION_NOPE_OPS_URL: http://127.0.0.1:9\n',
      'DD_NOTIFICATION_NOPE_OPS_URL',
    ],
  ] as const) {
    it(`is refused (exit 78) with the file and the key named: ${label}`, async () => {
      const file = join(dir, `${key}.yaml`);
      await writeFile(file, text);
      const hub = spawnHub({
        DD_CONFIG_FILE: file,
        DD_STORE_DRIVER: 'memory',
        DD_SERVER_PORT: '0',
        DD_LOCAL_WATCHER: 'false',
      });
      expect(await hub.exited).toBe(78);
      const message = hub.stderr.join('\n');
      expect(message).toContain(`DD_CONFIG_FILE: ${file}`);
      expect(message).toContain(key);
    }, 30_000);
  }
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
