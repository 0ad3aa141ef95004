/**
 * `dockwatch check` as a real process (issue 29 item 4, docs/sources.md "One command"): images on
 * the command line, a directory of Dockerfiles and compose files, an image list and a real dockerd,
 * against real registries (plain behind a counting proxy, and one with basic auth). Only PATH and
 * HOME are inherited, so the caller's DD_* cannot change what is tested.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowOf } from '../../hub/src/checks/check-report';
import { type Container, ContainerSchema } from '../../shared/schemas/container';
import { copyBuild } from '../support/docker/dockwatch-images';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { CLI_BUILD, REPO_ROOT } from '../support/hub-process';
import { type LatencyProxy, startLatencyProxy } from '../support/latency-proxy';
import { pushImage } from '../support/registry/push-image';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { type CommandResult, runCommand } from '../support/run-command';

/**
 * `dockwatch check` from the production build (dist/cli.mjs, made from the sources by the test beds'
 * global setup), with only PATH and HOME of the caller's environment. Through tsx, each of these
 * runs cost about two CPU-seconds of transforms before checking anything.
 */
function check(args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  return runCommand(process.execPath, [CLI_BUILD, 'check', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', DD_LOCAL_WATCHER: 'false', ...env },
  });
}

let registry: TestRegistry;
let privateRegistry: TestRegistry;
let proxy: LatencyProxy;
let dir: string;

beforeAll(async () => {
  [registry, privateRegistry] = await Promise.all([
    startRegistry({ variant: 'plain' }),
    startRegistry({ variant: 'basic' }),
  ]);
  await pushImage(registry, {
    repository: 'team/api',
    tags: ['1.0.0', '1.1.0', '2.0.0'],
    created: '2024-01-01T00:00:00Z',
  });
  await pushImage(registry, { repository: 'team/web', tags: ['3.1.0'] });
  await pushImage(privateRegistry, { repository: 'secret/app', tags: ['1.0.0', '1.0.1'] });
  // 20 ms per registry request, as a registry on the internet would add.
  proxy = await startLatencyProxy(registry.url, 20);
  dir = await mkdtemp(join(tmpdir(), 'dockwatch-check-'));
  const r = proxy.host;
  await mkdir(join(dir, 'builds', 'api'), { recursive: true });
  await writeFile(
    join(dir, 'builds', 'api', 'Dockerfile'),
    `ARG V=1.0.0\nFROM ${r}/team/api:\${V} AS build\nFROM ${r}/team/web:3.1.0\n`,
  );
  await writeFile(join(dir, 'builds', 'compose.yaml'), `services:\n  api:\n    image: ${r}/team/api:1.1.0\n`);
  await writeFile(
    join(dir, 'images.yaml'),
    `- image: ${r}/team/api:1.0.0\n  name: api-pinned\n  dd.tag.include: '^1\\.'\n`,
  );
  await mkdir(join(dir, 'broken'));
  await writeFile(join(dir, 'broken', 'Dockerfile'), `FROM ${r}/team/web:3.1.0\nFROM ${r}/team/api:\${NO_DEFAULT}\n`);
  await writeFile(join(dir, 'broken', 'compose.yml'), 'services:\n  x: [\n');
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all([registry?.stop(), privateRegistry?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('dockwatch check', () => {
  it('prints a table of every source, one tag list per repository across them, and exits 1 for updates', async () => {
    proxy.reset();
    const r = proxy.host;
    const run = await check([
      `${r}/team/api:1.0.0`,
      `${r}/team/web:3.1.0`,
      '--dir',
      join(dir, 'builds'),
      '--file',
      join(dir, 'images.yaml'),
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]?.split(/\s+/)).toEqual(['NAME', 'IMAGE', 'CURRENT', 'CANDIDATE', 'KIND', 'AGE']);
    const rows = lines.slice(1).map((line) => line.split(/\s{2,}/));
    expect(rows).toHaveLength(6);
    expect(rows).toContainEqual([
      'api-pinned',
      `${r}/team/api`,
      '1.0.0',
      '1.1.0',
      'minor',
      expect.stringMatching(/^\d+d$/),
    ]);
    expect(rows).toContainEqual([
      'api (compose.yaml)',
      `${r}/team/api`,
      '1.1.0',
      '2.0.0',
      'major',
      expect.stringMatching(/^\d+d$/),
    ]);
    expect(rows).toContainEqual(['api/Dockerfile', `${r}/team/web`, '3.1.0', '-', '-', '-']);
    // Updates first.
    expect(rows.slice(0, 4).every((row) => row[3] !== '-')).toBe(true);
    // Two repositories named six times over four sources: two tag lists.
    expect(proxy.counts.get('GET tags')).toBe(2);
  });

  it('--json gives the API container fields, with a versioned summary; exits 0 when nothing is newer', async () => {
    const run = await check([`${proxy.host}/team/api:2.0.0`, `${proxy.host}/team/web:3.1.0`, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      version: number;
      summary: unknown;
      sources: unknown[];
      containers: unknown[];
    };
    expect(report.version).toBe(1);
    expect(report.summary).toEqual({ containers: 2, updates: 0, errors: 0 });
    expect(report.sources).toEqual([{ type: 'file', name: 'command-line', errors: [], problems: [] }]);
    for (const container of report.containers) expect(() => v.parse(ContainerSchema, container)).not.toThrow();
  });

  it('reports bad files with file and line on stderr, checks the rest, and exits 2', async () => {
    const run = await check(['--dir', join(dir, 'broken'), 'not a reference', '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n').sort()).toEqual([
      expect.stringMatching(/^dockerfile\.dir-1: Dockerfile:2: FROM .*no default/),
      expect.stringMatching(/^dockerfile\.dir-1: compose\.yml:\d+: YAML syntax error/),
      expect.stringMatching(/^file\.command-line: command line:1: invalid image reference/),
    ]);
    const report = JSON.parse(run.stdout) as { containers: { image: { name: string } }[]; summary: { errors: number } };
    expect(report.containers.map((container) => container.image.name)).toEqual(['team/web']);
    expect(report.summary.errors).toBe(3);
  });

  it('honours DD_REGISTRY_* credentials: refused without them (exit 2), checked with them', async () => {
    const reference = `${privateRegistry.host}/secret/app:1.0.0`;
    const anonymous = await check([reference, '--json']);
    expect(anonymous.code).toBe(2);
    const failed = JSON.parse(anonymous.stdout) as { containers: { error?: { message: string } }[] };
    expect(failed.containers[0]?.error?.message).toMatch(/401|unauthori[sz]ed|credentials/i);
    const [login, password] = Object.entries(privateRegistry.users)[0] as [string, string];
    const signedIn = await check([reference], {
      DD_REGISTRY_CUSTOM_PRIVATE_URL: privateRegistry.url,
      DD_REGISTRY_CUSTOM_PRIVATE_LOGIN: login,
      DD_REGISTRY_CUSTOM_PRIVATE_PASSWORD: password,
    });
    expect(signedIn.stderr).toBe('');
    expect(signedIn.code).toBe(1);
    expect(signedIn.stdout).toMatch(/1\.0\.0\s+1\.0\.1\s+patch/);
  });

  it('shows progress on stderr once a check takes longer than a second, and only then', async () => {
    const slow = await startLatencyProxy(registry.url, 400);
    try {
      const run = await check([`${slow.host}/team/api:1.0.0`]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^dockwatch check: 0\/1 sources, \d+ registry requests, 1 s$/m);
    } finally {
      await slow.close();
    }
  });

  it('answers usage (64) and configuration (78) errors with their own codes, and documents everything in --help', async () => {
    const help = await check(['--help']);
    expect(help.code).toBe(0);
    for (const word of [
      '--docker',
      '--file',
      '--dir',
      '--json',
      '--all',
      'IMAGE...',
      'DD_REGISTRY_',
      'Exit codes',
      '64',
      '78',
    ])
      expect(help.stdout).toContain(word);
    const usage = await check(['--colour']);
    expect(usage.code).toBe(64);
    expect(usage.stderr).toMatch(/Unknown option '--colour'/);
    const configuration = await check(['nginx:1.25'], { DD_REGISTRY_TIMEOUT: 'soon' });
    expect(configuration.code).toBe(78);
    expect(configuration.stderr).toMatch(/DD_REGISTRY_TIMEOUT/);
  });
});

describe('dockwatch check from the production build', () => {
  it('runs as node dist/cli.mjs check and as the hub entry (the image entrypoint) with check, with no node_modules in reach', async () => {
    // A copy outside the work tree: an npm package left out of the bundle would not be found.
    const outdir = join(dir, 'dist');
    await copyBuild(outdir);
    const run = (entry: string, args: string[]) =>
      runCommand(process.execPath, [join(outdir, entry), ...args], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', DD_LOCAL_WATCHER: 'false' },
      });
    const cli = await run('cli.mjs', ['check', `${proxy.host}/team/api:1.1.0`]);
    expect(cli).toMatchObject({ code: 1, stderr: '' });
    expect(cli.stdout).toMatch(/1\.1\.0\s+2\.0\.0\s+major/);
    const hub = await run('hub.mjs', ['check', '--json', `${proxy.host}/team/web:3.1.0`]);
    expect(hub.code).toBe(0);
    expect(JSON.parse(hub.stdout)).toMatchObject({ version: 1, summary: { containers: 1, updates: 0 } });
  }, 60_000);
});

describe('dockwatch check --docker', () => {
  let dockerd: TestDockerd;
  beforeAll(async () => {
    dockerd = await startDockerd();
    await importBusyboxImage(dockerd.docker, { repository: `${proxy.host}/team/api`, tag: '1.0.0' });
    await runContainer(dockerd.docker, { name: 'api', image: `${proxy.host}/team/api:1.0.0`, cmd: ['sleep', '600'] });
    await runContainer(dockerd.docker, {
      name: 'api-held',
      image: `${proxy.host}/team/api:1.0.0`,
      cmd: ['sleep', '600'],
      labels: { 'dd.tag.include': '^1\\.' },
    });
  }, 60_000);
  afterAll(async () => {
    await dockerd?.stop();
  });

  it('checks the containers of the local socket with their labels, and stores nothing', async () => {
    const storePath = join(dir, 'store-never-written');
    const run = await check(['--docker', '--json'], {
      DOCKER_HOST: `unix://${dockerd.socketPath}`,
      DD_STORE_PATH: storePath,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { containers: { name: string; result?: { tag: string } }[] };
    expect(Object.fromEntries(report.containers.map((container) => [container.name, container.result?.tag]))).toEqual({
      api: '2.0.0',
      'api-held': '1.1.0',
    });
    expect(existsSync(storePath)).toBe(false);
  });

  it('prints the same table from the listing alone as from inspected containers, a moved tag included (issue 29)', async () => {
    // A newer build under the containers' tag: the listing then names their image by id (dockerode-host.ts summaryOf).
    await importBusyboxImage(dockerd.docker, {
      repository: `${proxy.host}/team/api`,
      tag: '1.0.0',
      extraFile: { path: '/build', content: 'newer' },
    });
    const env = { DOCKER_HOST: `unix://${dockerd.socketPath}` };
    const table = await check(['--docker'], env);
    const json = await check(['--docker', '--json'], env);
    expect([table.code, table.stderr]).toEqual([1, '']);
    const rows = table.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s{2,}/).slice(0, 5));
    const report = JSON.parse(json.stdout) as { containers: Container[] };
    const inspected = report.containers
      .map((container) => rowOf(container, Date.now()))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((row) => [row.name, row.image, row.current, row.candidate, row.kind]);
    expect(rows).toEqual(inspected);
    expect(rows.map((row) => row[1])).toEqual([`${proxy.host}/team/api`, `${proxy.host}/team/api`]);
  });
});
