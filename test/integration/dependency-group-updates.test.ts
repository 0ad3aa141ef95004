/**
 * Dependency-group updates (docs/updates.md) on a real Docker Engine and registry, with the hub as
 * `npm start` runs it: the order comes from dd.depends_on and compose depends_on labels, waves run
 * one after the other, and a failed wave stops the group. Docker is checked with the test's own dockerode.
 */
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import type { HubOnDockerd } from '../support/docker/hub-on-dockerd';
import { type AppKind, publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { type DockerdUpdateBed, startDockerdUpdateBed } from '../support/dockerd-update-bed';
import { expectJsonError } from '../support/hub-harness';
import { dataOf, openSse } from '../support/sse-client';

const CONFIRM = { 'X-DD-Confirm-Action': 'dependency-group-update' };

interface Member {
  containerName: string;
  wave: number;
  dependsOn: string[];
  result: string;
  operationId?: string;
  status?: number;
}
interface GroupAnswer {
  batchId: string;
  rootName: string;
  waves: number;
  members: Member[];
}
interface OperationView {
  id: string;
  containerName: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  batchId?: string;
}

describe('dependency-group updates on a real Docker Engine', () => {
  let bed: DockerdUpdateBed;
  let docker: Docker;
  let hub: HubOnDockerd;
  const ids: Record<string, string> = {};
  const refs: Record<string, string> = {};

  /** `name` runs `deps/<name>:1.0.0` (sleep); `next` publishes a 2.0.0 of that kind, or none. */
  async function runApp(name: string, labels: Record<string, string>, next: AppKind | undefined): Promise<void> {
    refs[name] = await publishApp(bed.dockerd, bed.registry, {
      repository: `deps/${name}`,
      tag: '1.0.0',
      kind: 'sleep',
    });
    if (next)
      refs[`${name}@2`] = await publishApp(bed.dockerd, bed.registry, {
        repository: `deps/${name}`,
        tag: '2.0.0',
        kind: next,
      });
    await pullApp(bed.dockerd, refs[name] ?? '');
    ids[name] = await startWatchedApp(bed.dockerd, name, refs[name] ?? '', labels);
  }

  const imageOf = async (name: string) => {
    const [found] = await docker.listContainers({ all: true, filters: { name: [`^/${name}$`] } });
    return found?.Image;
  };
  const operation = (id: string) => hub.json<OperationView>(`/api/v1/update-operations/${id}`);
  const operationsOf = async (name: string) => {
    const record = (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name);
    return record
      ? (await hub.json<{ data: OperationView[] }>(`/api/v1/containers/${record.id}/update-operations`)).data
      : [];
  };
  const groupAudit = async () =>
    (await hub.json<{ data: AuditEntry[] }>('/api/v1/audit?actions=dependency-group-update')).data;

  beforeAll(async () => {
    bed = await startDockerdUpdateBed(300);
    ({ docker, hub } = bed);
    // db ← api ← web, and db ← worker (a compose service: its depends_on label names db's service).
    await runApp('db', { 'com.docker.compose.project': 'shop', 'com.docker.compose.service': 'database' }, 'sleep');
    await runApp('api', { 'dd.depends_on': 'db' }, 'sleep');
    await runApp(
      'worker',
      {
        'com.docker.compose.project': 'shop',
        'com.docker.compose.service': 'worker',
        'com.docker.compose.depends_on': 'database:service_started:false',
      },
      undefined,
    );
    await runApp('web', { 'dd.depends_on': 'api' }, 'sleep');
    // base's 2.0.0 exits at once: its update rolls back, and client, which depends on it, must not move.
    await runApp('base', {}, 'exits');
    await runApp('client', { 'dd.depends_on': 'base' }, 'sleep');
    expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
  }, 240_000);

  afterAll(() => bed?.stop());

  it('updates the root, then each wave once the one before succeeded, under one batchId', async () => {
    const stream = await openSse(hub.api, '/api/v1/events/ui');
    await stream.nextOfType('dd:connected');
    await expectJsonError(await hub.api(`/api/v1/dependency-groups/${ids['db']}/update`, { method: 'POST' }), 428);
    const response = await hub.api(`/api/v1/dependency-groups/${ids['db']}/update`, {
      method: 'POST',
      headers: CONFIRM,
    });
    expect(response.status).toBe(202);
    const answer = (await response.json()) as GroupAnswer;
    expect(answer).toMatchObject({ rootName: 'db', waves: 3 });
    expect(answer.members.map((m) => [m.containerName, m.wave, m.dependsOn, m.result])).toEqual([
      ['db', 0, [], 'queued'],
      ['api', 1, ['db'], 'pending'],
      ['worker', 1, ['db'], 'unchanged'],
      ['web', 2, ['api'], 'pending'],
    ]);

    let completed = dataOf(await stream.nextOfType('dd:batch-update-completed', 120_000));
    while (completed['batchId'] !== answer.batchId)
      completed = dataOf(await stream.nextOfType('dd:batch-update-completed', 120_000));
    await stream.close();
    expect(completed).toMatchObject({ total: 3, succeeded: 3, failed: 0 });

    const [db] = await operationsOf('db');
    const [api] = await operationsOf('api');
    const [web] = await operationsOf('web');
    for (const op of [db, api, web]) expect(op).toMatchObject({ status: 'succeeded', batchId: answer.batchId });
    // A wave is requested only after the one before has settled.
    expect(Date.parse(api?.createdAt ?? '')).toBeGreaterThanOrEqual(Date.parse(db?.updatedAt ?? ''));
    expect(Date.parse(web?.createdAt ?? '')).toBeGreaterThanOrEqual(Date.parse(api?.updatedAt ?? ''));
    expect(await imageOf('db')).toBe(refs['db@2']);
    expect(await imageOf('api')).toBe(refs['api@2']);
    expect(await imageOf('web')).toBe(refs['web@2']);
    expect(await imageOf('worker')).toBe(refs['worker']);
    await expect.poll(async () => (await groupAudit())[0]?.status, { timeout: 10_000 }).toBe('succeeded');
    expect((await groupAudit())[0]).toMatchObject({ containerName: 'db' });
  }, 180_000);

  it('stops the group when a wave fails: the dependents are skipped and keep running what they ran', async () => {
    const answer = await hub.json<GroupAnswer>(`/api/v1/dependency-groups/${ids['base']}/update`, {
      method: 'POST',
      headers: CONFIRM,
    });
    const baseOperation = answer.members[0]?.operationId ?? '';
    await expect
      .poll(async () => (await operation(baseOperation)).status, { timeout: 60_000, interval: 250 })
      .toBe('rolled-back');
    await expect.poll(async () => (await groupAudit())[0]?.status, { timeout: 10_000 }).toBe('failed');
    expect((await groupAudit())[0]?.details).toContain('client skipped');
    expect(await operationsOf('client')).toEqual([]);
    expect(await imageOf('client')).toBe(refs['client']);
    expect(await imageOf('base')).toBe(refs['base']);
  }, 120_000);

  it('answers 400 when nothing in the group has an update, 409 naming a cycle, 404 for an unknown root', async () => {
    await expectJsonError(
      await hub.api(`/api/v1/dependency-groups/${ids['worker']}/update`, { method: 'POST', headers: CONFIRM }),
      400,
    );
    const looped = await docker.createContainer({
      name: 'loop-a',
      Image: refs['worker'],
      Labels: { 'dd.depends_on': 'worker,loop-b' },
      NetworkDisabled: true,
      HostConfig: { NetworkMode: 'none' },
    });
    await looped.start();
    const other = await docker.createContainer({
      name: 'loop-b',
      Image: refs['worker'],
      Labels: { 'dd.depends_on': 'loop-a' },
      NetworkDisabled: true,
      HostConfig: { NetworkMode: 'none' },
    });
    await other.start();
    await hub.refresh();
    const cycle = await expectJsonError(
      await hub.api(`/api/v1/dependency-groups/${ids['worker']}/update`, { method: 'POST', headers: CONFIRM }),
      409,
    );
    expect(cycle.details).toMatchObject({ reason: 'dependency-cycle', containers: ['loop-a', 'loop-b'] });
    await expectJsonError(
      await hub.api('/api/v1/dependency-groups/nope/update', { method: 'POST', headers: CONFIRM }),
      404,
    );
  }, 60_000);
});
