/**
 * File sources on a real hub process (issue 29 item 3, docs/sources.md): an image list and a
 * directory of Dockerfiles and compose files, real files in a temp dir, checked against a real
 * registry (Debian's distribution) behind a counting proxy. Bad files are reported with file and
 * line and never drop the entries of the other files; a changed file is picked up without a cycle.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, startHubProcess } from '../support/hub-process';
import { type LatencyProxy, startLatencyProxy } from '../support/latency-proxy';
import { pushImage } from '../support/registry/push-image';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

interface Record {
  id: string;
  name: string;
  watcher: string;
  watcherType?: string;
  labels: { [key: string]: string };
  updateAvailable: boolean;
  result?: { tag: string };
  image: { name: string; tag: { value: string } };
}
interface Watcher {
  id: string;
  type: string;
  name: string;
  configuration?: { [key: string]: unknown };
  metadata: { problems?: { file: string; line?: number; message: string }[]; fileReads?: number };
}

let registry: TestRegistry;
let proxy: LatencyProxy;
let hub: HubProcess;
let dir: string;

const get = async <T>(path: string): Promise<T> => {
  const response = await fetch(`${hub.url}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
};
const containers = async () => (await get<{ data: Record[] }>('/api/v1/containers?limit=200')).data;
const watchers = async () => (await get<{ data: Watcher[] }>('/api/v1/watchers')).data;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const bySource = (records: Record[]) =>
  Object.fromEntries(
    records.map((record) => [
      `${record.watcher}:${record.labels['dockwatch.source.file']}:${record.labels['dockwatch.source.line']}`,
      `${record.image.name}:${record.image.tag.value} -> ${record.updateAvailable ? record.result?.tag : '-'}`,
    ]),
  );

beforeAll(async () => {
  registry = await startRegistry({ variant: 'plain' });
  await pushImage(registry, { repository: 'team/api', tags: ['1.0.0', '1.1.0', '2.0.0'] });
  await pushImage(registry, { repository: 'team/web', tags: ['3.1.0', '3.2.0'] });
  await pushImage(registry, { repository: 'team/db', tags: ['5.0.0'] });
  proxy = await startLatencyProxy(registry.url, 0);
  const r = proxy.host;
  dir = await mkdtemp(join(tmpdir(), 'dockwatch-file-sources-'));
  await mkdir(join(dir, 'builds', 'api'), { recursive: true });
  await mkdir(join(dir, 'builds', 'node_modules', 'x'), { recursive: true });
  await writeFile(
    join(dir, 'builds', 'api', 'Dockerfile'),
    [
      'ARG API=1.0.0',
      `FROM ${r}/team/api:\${API} AS build`,
      'RUN make',
      'FROM scratch',
      'FROM build',
      `FROM ${r}/team/web:3.1.0`,
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'builds', 'compose.yaml'),
    `services:\n  api:\n    image: ${r}/team/api:1.0.0\n  db:\n    image: ${r}/team/db:5.0.0\n  bad:\n    image: ${r}/team/api:\${UNSET}\n`,
  );
  await writeFile(join(dir, 'builds', 'api', 'docker-compose.yml'), 'services:\n  web: [unclosed\n');
  await writeFile(join(dir, 'builds', 'node_modules', 'x', 'Dockerfile'), `FROM ${r}/team/never:1.0.0\n`);
  await writeFile(
    join(dir, 'images.yml'),
    [
      'images:',
      `  - ${r}/team/web:3.1.0`,
      `  - image: ${r}/team/api:1.0.0`,
      '    name: api-1.x',
      "    dd.tag.include: '^1\\.'",
      '  - image: "not a reference"',
    ].join('\n'),
  );
  hub = await startHubProcess({
    DD_STORE_DRIVER: 'memory',
    DD_LOCAL_WATCHER: 'false',
    DD_WATCHER_BUILDS_TYPE: 'dockerfile',
    DD_WATCHER_BUILDS_DIRECTORY: join(dir, 'builds'),
    DD_WATCHER_LIST_TYPE: 'file',
    DD_WATCHER_LIST_FILE: join(dir, 'images.yml'),
    DD_WATCHER_LIST_JITTER: '0',
    DD_WATCHER_BUILDS_JITTER: '0',
    DD_ACTION_DOCKER_UPDATE_AUTO: 'false',
  });
}, 60_000);

afterAll(async () => {
  await hub?.kill();
  await proxy?.close();
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('file sources on a hub', () => {
  it('watches every FROM, compose image: and list item with its file and line, one tag list per repository', async () => {
    const records = await until('the first cycle', async () => {
      const all = await containers();
      return all.length === 6 && all.every((record) => record.labels['dockwatch.source.line']) ? all : undefined;
    });
    expect(bySource(records)).toEqual({
      'builds:api/Dockerfile:2': `team/api:1.0.0 -> 2.0.0`,
      'builds:api/Dockerfile:6': `team/web:3.1.0 -> 3.2.0`,
      'builds:compose.yaml:3': `team/api:1.0.0 -> 2.0.0`,
      'builds:compose.yaml:5': `team/db:5.0.0 -> -`,
      // The list's dd.tag.include keeps this one on 1.x.
      [`list:${join(dir, 'images.yml')}:3`]: `team/api:1.0.0 -> 1.1.0`,
      [`list:${join(dir, 'images.yml')}:2`]: `team/web:3.1.0 -> 3.2.0`,
    });
    // Three repositories, named nine times over two sources and four files: three tag lists.
    expect(proxy.counts.get('GET tags')).toBe(3);
    // Each record names its source's type, and the list filters by it (docker's carry none).
    const typed = async (type: string) =>
      (await get<{ data: Record[] }>(`/api/v1/containers?watcherType=${type}`)).data.map((r) => r.watcherType);
    expect(await typed('file')).toEqual(['file', 'file']);
    expect(await typed('dockerfile')).toEqual(['dockerfile', 'dockerfile', 'dockerfile', 'dockerfile']);
    expect(await typed('docker')).toEqual([]);
    const refused = await fetch(`${hub.url}/api/v1/containers?watcherType=kubernetes`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/watcherType/);
  });

  it('reports the bad files and items on their source with file and line, the other entries kept', async () => {
    const all = await watchers();
    const builds = all.find((watcher) => watcher.id === 'dockerfile.builds');
    const list = all.find((watcher) => watcher.id === 'file.list');
    expect(builds?.configuration).toMatchObject({ directory: join(dir, 'builds'), jitter: 0 });
    expect(builds?.metadata.problems?.map(({ file, line }) => `${file}:${line}`).sort()).toEqual([
      'api/docker-compose.yml:3',
      'compose.yaml:7',
    ]);
    expect(list?.metadata.problems).toEqual([
      { file: join(dir, 'images.yml'), line: 6, message: expect.stringMatching(/invalid image reference/) },
    ]);
    const types = await get<{ data: { type: string; update: boolean }[] }>('/api/v1/watchers/types');
    expect(types.data.map(({ type, update }) => [type, update])).toEqual([
      ['docker', true],
      ['swarm', true],
      ['podman', true],
      ['file', false],
      ['dockerfile', false],
    ]);
  });

  it('refreshes a file source inventory through the API, and answers 501 for a type it does not have', async () => {
    const refreshed = await fetch(`${hub.url}/api/v1/watchers/dockerfile/builds/inventory`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as { containers: unknown[]; authoritative: boolean };
    expect(body).toMatchObject({ authoritative: true });
    expect(body.containers).toHaveLength(4);
    const unknown = await fetch(`${hub.url}/api/v1/watchers/kubernetes/prod/inventory`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unknown.status).toBe(501);
    expect(await unknown.json()).toMatchObject({ error: expect.any(String) });
  });

  it('has no update action: an update of a file entry is refused with why, even with a Docker action trigger', async () => {
    const [entry] = await containers();
    const response = await fetch(`${hub.url}/api/v1/containers/${entry?.id}/update`, { method: 'POST' });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      error: expect.stringMatching(/has no update action: change the file itself/),
    });
  });

  it('picks up a changed file without a cycle; a file turned bad keeps its entries and says why', async () => {
    const r = proxy.host;
    const composePath = join(dir, 'builds', 'compose.yaml');
    const readsOf = async () => (await watchers()).find((each) => each.id === 'dockerfile.builds')?.metadata.fileReads;
    const readsBefore = await readsOf();
    await writeFile(
      composePath,
      `services:\n  api:\n    image: ${r}/team/api:1.1.0\n  db:\n    image: ${r}/team/db:5.0.0\n`,
    );
    const changed = await until('the changed compose file', async () => {
      const map = bySource(await containers());
      return map['builds:compose.yaml:3'] === 'team/api:1.1.0 -> 2.0.0' ? map : undefined;
    });
    expect(Object.keys(changed)).toHaveLength(6);
    // Only the changed file was read again (metadata.fileReads, what bench/sources.ts reports).
    expect(await readsOf()).toBe((readsBefore ?? Number.NaN) + 1);
    // The list turns into a syntax error: its two entries stay, and the problem says where.
    await writeFile(join(dir, 'images.yml'), 'images:\n  - [broken\n');
    const list = await until('the problem of the broken list', async () => {
      const watcher = (await watchers()).find((each) => each.id === 'file.list');
      return watcher?.metadata.problems?.some((problem) => /YAML syntax error/.test(problem.message))
        ? watcher
        : undefined;
    });
    expect(list.metadata.problems?.[0]).toMatchObject({ file: join(dir, 'images.yml'), line: expect.any(Number) });
    expect((await containers()).filter((record) => record.watcher === 'list')).toHaveLength(2);
    const compose = (await watchers()).find((each) => each.id === 'dockerfile.builds');
    expect(compose?.metadata.problems?.map((problem) => problem.file)).toEqual(['api/docker-compose.yml']);
  });
});
