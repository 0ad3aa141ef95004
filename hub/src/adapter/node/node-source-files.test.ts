import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DockerContainerEvent } from '../../../../shared/docker/docker-host';
import { createFileSourceHost, type FileSourceHost } from '../../sources/file-source-host';
import { nodeSourceFiles } from './node-source-files';

let dir: string;
let host: FileSourceHost | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dockwatch-source-files-'));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(dir, { recursive: true, force: true });
});

function eventsOf(source: FileSourceHost) {
  const events: DockerContainerEvent[] = [];
  const waiters: (() => void)[] = [];
  source.subscribeEvents({
    onEvent: (event) => {
      events.push(event);
      for (const wake of waiters.splice(0)) wake();
    },
    onClose: () => undefined,
  });
  const until = async (count: number) => {
    while (events.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return events;
  };
  return { events, until };
}

describe('a directory source on real files', () => {
  it('reads every file once, then only the file that changed; a removed file takes its entries with it', async () => {
    for (let index = 0; index < 40; index += 1) {
      await mkdir(join(dir, `svc-${index}`));
      await writeFile(join(dir, `svc-${index}`, 'Dockerfile'), `FROM registry.test/base:${index % 5}.0.0\n`);
    }
    await writeFile(join(dir, 'compose.yaml'), 'services:\n  web:\n    image: nginx:1.25.0\n');
    await writeFile(join(dir, 'README.md'), 'FROM not-a-dockerfile:1\n');
    host = createFileSourceHost({
      sourceId: 'dockerfile.t',
      type: 'dockerfile',
      files: nodeSourceFiles({ type: 'dockerfile', path: dir }),
      now: Date.now,
    });
    const { until } = eventsOf(host);
    expect(await host.listContainers(true)).toHaveLength(41);
    expect(host.reads).toBe(41);

    await writeFile(join(dir, 'compose.yaml'), 'services:\n  web:\n    image: nginx:1.27.0\n');
    const [destroyed, created] = await until(2);
    expect([destroyed?.action, created?.action]).toEqual(['destroy', 'create']);
    // The changed file only; the listing serves what was read.
    expect(host.reads).toBe(42);
    const web = (await host.listContainers(true)).find((summary) => summary.name === 'web (compose.yaml)');
    expect(web?.image).toBe('nginx:1.27.0');
    expect(await host.inspectContainer(destroyed?.id ?? '')).toBeUndefined();
    expect(host.reads).toBe(42);

    await unlink(join(dir, 'svc-3', 'Dockerfile'));
    const events = await until(3);
    expect(events[2]?.action).toBe('destroy');
    expect(await host.listContainers(true)).toHaveLength(40);
  });

  it('keeps the last entries of a file turned unparsable, shows its problem, and keeps the other files', async () => {
    await writeFile(join(dir, 'compose.yaml'), 'services:\n  db:\n    image: postgres:16.1\n');
    await writeFile(join(dir, 'Dockerfile'), 'FROM alpine:3.19\n');
    host = createFileSourceHost({
      sourceId: 'dockerfile.t',
      type: 'dockerfile',
      files: nodeSourceFiles({ type: 'dockerfile', path: dir }),
      now: Date.now,
    });
    expect((await host.listContainers(true)).map((summary) => summary.image).sort()).toEqual([
      'alpine:3.19',
      'postgres:16.1',
    ]);
    eventsOf(host);
    await writeFile(join(dir, 'compose.yaml'), 'services:\n  db: [\n');
    while (host.problems().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await host.listContainers(true)).map((summary) => summary.image).sort()).toEqual([
      'alpine:3.19',
      'postgres:16.1',
    ]);
    expect(host.problems()).toEqual([
      { file: 'compose.yaml', line: expect.any(Number), message: expect.stringMatching(/YAML syntax error/) },
    ]);
  });

  it('reports a directory that does not exist as a listing error, naming the source', async () => {
    host = createFileSourceHost({
      sourceId: 'dockerfile.gone',
      type: 'dockerfile',
      files: nodeSourceFiles({ type: 'dockerfile', path: join(dir, 'missing') }),
      now: Date.now,
    });
    await expect(host.listContainers(true)).rejects.toThrow(/dockerfile\.gone: .*ENOENT/);
    expect(host.problems()).toEqual([{ file: '.', message: expect.stringMatching(/ENOENT/) }]);
  });

  it('reads an image list again when an editor replaces it', async () => {
    const list = join(dir, 'images.yaml');
    await writeFile(list, '- nginx:1.25.0\n');
    host = createFileSourceHost({
      sourceId: 'file.t',
      type: 'file',
      files: nodeSourceFiles({ type: 'file', path: list }),
      now: Date.now,
    });
    const { until } = eventsOf(host);
    expect((await host.listContainers(true)).map((summary) => summary.image)).toEqual(['nginx:1.25.0']);
    await writeFile(`${list}.tmp`, '- nginx:1.25.0\n- redis:7.2.4\n');
    const { rename } = await import('node:fs/promises');
    await rename(`${list}.tmp`, list);
    expect((await until(1))[0]?.action).toBe('create');
    expect((await host.listContainers(true)).map((summary) => summary.image)).toEqual(['nginx:1.25.0', 'redis:7.2.4']);
  });
});
