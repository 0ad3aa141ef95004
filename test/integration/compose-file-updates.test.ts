/**
 * Compose awareness of updates (docs/updates.md "Compose files"), end to end: containers carrying the labels docker
 * compose sets (compose itself is not installed here; the test sets them with dockerode) are
 * updated through the hub on a real dockerd and registry, and their compose files on disk follow.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComposeFileEditor } from '../../edge-agent/src/compose';
import { createDockerHost } from '../../edge-agent/src/docker';
import { auditComposeFile } from '../../hub/src/updates/compose-audit';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import { recoverOperation, runUpdateOperation, type UpdateOperation } from '../../shared/update-engine';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const post = { method: 'POST' };
const SETTLED = ['succeeded', 'rolled-back', 'failed'];

describe('compose files follow updates, on a real Docker Engine and registry', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let hub: HubOnDockerd;
  let dir: string;

  const operation = (id: string) => hub.json<UpdateOperation>(`/api/v1/update-operations/${id}`);
  const byName = async (name: string): Promise<Container | undefined> =>
    (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name);

  async function settled(id: string): Promise<UpdateOperation> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const current = await operation(id);
      if (SETTLED.includes(current.status)) return current;
      if (Date.now() > deadline) throw new Error(`operation ${id} still ${current.status}/${current.phase}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function update(containerId: string): Promise<UpdateOperation> {
    const response = await hub.api(`/api/v1/containers/${containerId}/update`, post);
    const body = (await response.json()) as { operationId: string };
    expect(response.status).toBe(202);
    return settled(body.operationId);
  }

  /** A watched `compose/<name>:1.0.0` container with 2.0.0 published, labelled as compose would, checked once. */
  async function composeApp(
    name: string,
    labels: Record<string, string>,
  ): Promise<{ id: string; from: string; to: string }> {
    const from = await publishApp(dockerd, registry, { repository: `compose/${name}`, tag: '1.0.0', kind: 'sleep' });
    const to = await publishApp(dockerd, registry, { repository: `compose/${name}`, tag: '2.0.0', kind: 'sleep' });
    await pullApp(dockerd, from);
    const id = await startWatchedApp(dockerd, name, from, {
      'com.docker.compose.project': `stack-${name}`,
      'com.docker.compose.service': name,
      'com.docker.compose.project.working_dir': dir,
      ...labels,
    });
    expect((await hub.api('/api/v1/containers/watch', post)).status).toBe(200);
    expect((await byName(name))?.updateAvailable).toBe(true);
    return { id, from, to };
  }

  const backups = async () => (await readdir(dir)).filter((name) => name.endsWith('.bak'));

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    dir = await mkdtemp(join(tmpdir(), 'dd-compose-it-'));
    hub = await startHubOnDockerd(
      dockerd,
      {
        DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '2',
        DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
        // Chosen by containers labelled dd.action.include=plain: compose files left alone.
        DD_ACTION_DOCKER_PLAIN_COMPOSE: 'false',
      },
      { updates: { timing: { pollMs: 100, startSettleMs: 500 } } },
    );
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await Promise.all([dockerd?.stop(), registry?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('rewrites the image line of the file that sets it, byte for byte otherwise, with a backup; a rollback writes it back', async () => {
    const base = join(dir, 'compose.yml');
    const override = join(dir, 'compose.override.yml');
    const { id, from, to } = await composeApp('web', {
      'com.docker.compose.project.config_files': `${base},${override}`,
    });
    const baseText = [
      '# shop stack: edited by hand, keep the comments',
      'name: shop',
      '',
      'services:',
      '  web:   # the front',
      `    image: "${from}"   # pinned`,
      '    restart: unless-stopped',
      '',
      '  cache:',
      `    image: ${from}`,
      '',
    ].join('\n');
    const overrideText = '# local ports only\nservices:\n  web:\n    ports:\n      - "8080:80"\n';
    await writeFile(base, baseText);
    await writeFile(override, overrideText);

    const done = await update(id);
    expect(done).toMatchObject({ status: 'succeeded', composeFile: { path: base, status: 'rewritten' } });
    expect(done.composeFile?.backupPath).toMatch(new RegExp(`^${base.replaceAll('.', '\\.')}\\.\\d{8}T\\d{6}Z\\.bak$`));
    // Only web's scalar changed: cache names the same image and stays as it was.
    expect(await readFile(base, 'utf8')).toBe(baseText.replace(`"${from}"`, `"${to}"`));
    expect(await readFile(override, 'utf8')).toBe(overrideText);
    expect(await readFile(done.composeFile?.backupPath as string, 'utf8')).toBe(baseText);

    // The audit entry the hub writes once such an operation settles.
    await auditComposeFile(hub.parts, done);
    const entries = (await hub.json<{ data: AuditEntry[] }>('/api/v1/audit?actions=compose-file-updated')).data;
    expect(entries[0]).toMatchObject({
      action: 'compose-file-updated',
      containerName: 'web',
      containerImage: to,
      details: expect.stringContaining(base),
    });

    const current = await byName('web');
    const response = await hub.api(`/api/v1/containers/${current?.id}/rollback`, {
      method: 'POST',
      headers: { 'X-DD-Confirm-Action': 'container-rollback' },
    });
    expect(response.status).toBe(200);
    const back = await settled(((await response.json()) as { operationId: string }).operationId);
    expect(back).toMatchObject({
      kind: 'rollback',
      status: 'succeeded',
      composeFile: { path: base, status: 'rewritten' },
    });
    expect(await readFile(base, 'utf8')).toBe(baseText);
    expect(await backups()).toHaveLength(2);
  }, 120_000);

  it('leaves a file whose image uses interpolation ($TAG) untouched, and the update still succeeds', async () => {
    const file = join(dir, 'api.yml');
    const { id } = await composeApp('api', { 'com.docker.compose.project.config_files': file });
    const text = `services:\n  api:\n    image: ${registry.host}/compose/api:\${TAG:-1.0.0}\n`;
    await writeFile(file, text);
    const before = await backups();

    const done = await update(id);
    expect(done).toMatchObject({
      status: 'succeeded',
      composeFile: { path: file, status: 'skipped', reason: expect.stringMatching(/interpolation/) },
    });
    expect(done.composeFile?.backupPath).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe(text);
    expect(await backups()).toEqual(before);
  }, 120_000);

  it("honours the trigger's COMPOSE=false, which its listed configuration shows", async () => {
    const file = join(dir, 'legacy.yml');
    const { id, from } = await composeApp('legacy', { 'dd.compose.file': file, 'dd.action.include': 'plain' });
    const text = `services:\n  legacy:\n    image: ${from}\n`;
    await writeFile(file, text);

    const done = await update(id);
    expect(done).toMatchObject({
      status: 'succeeded',
      triggerName: 'docker.plain',
      composeFile: { path: file, status: 'skipped', reason: 'DD_ACTION_DOCKER_PLAIN_COMPOSE=false' },
    });
    expect(await readFile(file, 'utf8')).toBe(text);
    const triggers = await hub.json<{ data: { id: string; configuration: Record<string, unknown> }[] }>(
      '/api/v1/triggers',
    );
    expect(triggers.data.find((trigger) => trigger.id === 'docker.plain')?.configuration).toMatchObject({
      compose: false,
    });
    expect(triggers.data.find((trigger) => trigger.id === 'docker.update')?.configuration).not.toHaveProperty(
      'compose',
    );
  }, 120_000);

  it('rewrites the file when a restart settles an update stopped after its health gate (recovery)', async () => {
    // The engine on its own, as the hub and an agent run it: the "crash" stops the run for good right
    // after it journalled health-gate-passed; recovery keeps the new container and finishes the job.
    const from = await publishApp(dockerd, registry, { repository: 'compose/crash', tag: '1.0.0', kind: 'healthy' });
    const to = await publishApp(dockerd, registry, { repository: 'compose/crash', tag: '2.0.0', kind: 'healthy' });
    await pullApp(dockerd, from);
    const file = join(dir, 'crash.yml');
    const text = `services:\n  crash:\n    image: ${from} # recovered\n`;
    await writeFile(file, text);
    const created = await dockerd.docker.createContainer({
      name: 'crash',
      Image: from,
      Labels: { 'com.docker.compose.service': 'crash', 'com.docker.compose.project.config_files': file },
      StopTimeout: 2,
      NetworkDisabled: true,
      HostConfig: { Init: true, NetworkMode: 'none' },
    });
    await created.start();
    const host = createDockerHost({ socketPath: dockerd.socketPath });
    const saves: UpdateOperation[] = [];
    const journal = { save: async (op: UpdateOperation) => void saves.push(structuredClone(op)) };
    const now = new Date().toISOString();
    const queued: UpdateOperation = {
      id: 'op-crash',
      kind: 'update',
      source: 'api',
      containerName: 'crash',
      containerId: created.id,
      watcher: 'local',
      status: 'queued',
      phase: 'prepare',
      createdAt: now,
      updatedAt: now,
      targetImage: to,
    };
    const editor = createComposeFileEditor();
    let reached: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const deps = { host, journal, now: Date.now, timing: { pollMs: 100, startSettleMs: 500 }, composeFiles: editor };
    const afterSave = async (op: UpdateOperation) => {
      if (op.phase !== 'health-gate-passed') return;
      reached();
      await new Promise(() => undefined);
    };
    void runUpdateOperation(queued, { healthTimeoutMs: 10_000 }, { ...deps, afterSave }, new AbortController().signal);
    await stopped;
    expect(await readFile(file, 'utf8')).toBe(text);

    const settledOp = await recoverOperation(saves.at(-1) as UpdateOperation, deps);
    expect(settledOp).toMatchObject({ status: 'succeeded', composeFile: { path: file, status: 'rewritten' } });
    expect(await readFile(file, 'utf8')).toBe(text.replace(from, to));
    // Recovering the same operation again (a crash before the last journal write) finds the work done.
    const again = await recoverOperation(
      { ...(saves.at(-2) as UpdateOperation) },
      { ...deps, journal: { save: async () => undefined } },
    );
    expect(again.composeFile).toMatchObject({ path: file, status: 'unchanged' });
  }, 120_000);
});
