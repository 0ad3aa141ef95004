/**
 * Update approvals (docs/approvals.md) end to end: a dockerd, a registry holding `approve/app` 1.0.0
 * and 2.0.0, and the hub as `npm start` runs it in auto mode with a Docker action trigger. Containers
 * labelled `dd.update.approval=required` get a pending approval when the watch finds 2.0.0 and are
 * not updated by themselves; approving runs the update on the dockerd, rejecting skips the candidate,
 * deferring snoozes it until the time given. One container without the label shows the auto mode at work.
 */
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/schemas/approval';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { expectJsonError, jsonInit } from '../support/hub-harness';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const REQUIRED = { 'dd.update.approval': 'required' };

describe('update approvals on a real Docker Engine and registry', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let docker: Docker;
  let hub: HubOnDockerd;
  let from: string;
  const ids: Record<string, string> = {};

  const byName = async (name: string): Promise<Container> => {
    const found = (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name);
    if (!found) throw new Error(`${name} is not in the inventory`);
    return found;
  };
  const approvalOf = async (name: string): Promise<Approval> => {
    const { data } = await hub.json<{ data: Approval[] }>(`/api/v1/approvals?container=${name}`);
    if (!data[0]) throw new Error(`no approval for ${name}`);
    return data[0];
  };
  const operationsOf = async (name: string): Promise<UpdateOperation[]> =>
    hub.parts.updates.operationsOf(await byName(name));
  const imageOfContainer = async (id: string) => (await docker.getContainer(id).inspect()).Config.Image;
  const audit = async (action: string, containerName: string) =>
    (await hub.json<{ data: AuditEntry[] }>(`/api/v1/audit?actions=${action}&limit=200`)).data.filter(
      (entry) => entry.containerName === containerName,
    );

  /** A watch cycle (the registry is asked), then every update it queued run to its end. */
  async function watch(): Promise<void> {
    const response = await hub.api('/api/v1/containers/watch', { method: 'POST' });
    expect(response.status).toBe(200);
    await hub.parts.updates.idle();
  }

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    docker = dockerd.docker;
    from = await publishApp(dockerd, registry, { repository: 'approve/app', tag: '1.0.0', kind: 'http' });
    await pullApp(dockerd, from);
    hub = await startHubOnDockerd(
      dockerd,
      { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' },
      { updates: { timing: { pollMs: 100, startSettleMs: 500 } } },
    );
    const mode = await hub.api('/api/v1/settings', jsonInit('PATCH', { updateMode: 'auto' }));
    expect(mode.status).toBe(200);
    for (const name of ['approved-app', 'rejected-app', 'deferred-app'])
      ids[name] = await startWatchedApp(dockerd, name, from, REQUIRED);
    ids['free-app'] = await startWatchedApp(dockerd, 'free-app', from);
    // 1.0.0 is all there is: the first watch finds nothing to approve.
    await watch();
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.stop();
    await registry?.stop();
  });

  it('2.0.0 appears: each labelled container gets one pending approval and is not updated by itself; the free one is', async () => {
    expect((await hub.json<{ total: number }>('/api/v1/approvals')).total).toBe(0);
    await publishApp(dockerd, registry, { repository: 'approve/app', tag: '2.0.0', kind: 'http' });
    await watch();
    for (const name of ['approved-app', 'rejected-app', 'deferred-app']) {
      expect(await approvalOf(name), name).toMatchObject({
        state: 'pending',
        origin: 'update-available',
        containerId: ids[name],
        fromVersion: '1.0.0',
        toVersion: '2.0.0',
      });
      expect(await operationsOf(name), name).toEqual([]);
      expect(await imageOfContainer(ids[name] ?? ''), name).toBe(from);
      const [blocked] = await audit('auto-update-blocked', name);
      expect(blocked?.status, name).toBe('approval-required');
    }
    const [freeOperation] = await operationsOf('free-app');
    expect(freeOperation).toMatchObject({ source: 'auto', status: 'succeeded', toVersion: '2.0.0' });
    expect(await hub.json('/api/v1/approvals/summary')).toMatchObject({ total: 3, pending: 3 });
    // A manual request waits for the same approval.
    const refused = await expectJsonError(
      await hub.api(`/api/v1/containers/${ids['approved-app']}/update`, { method: 'POST' }),
      409,
    );
    expect(refused.details).toMatchObject({
      reason: 'approval-required',
      approvalId: (await approvalOf('approved-app')).id,
    });
  });

  it('approving runs the update through the normal path to succeeded on the dockerd', async () => {
    const approval = await approvalOf('approved-app');
    const response = await hub.api(`/api/v1/approvals/${approval.id}/approve`, { method: 'POST' });
    expect(response.status).toBe(202);
    const { operationId } = (await response.json()) as { operationId: string };
    await hub.parts.updates.idle();
    expect(hub.parts.updates.get(operationId)).toMatchObject({
      status: 'succeeded',
      source: 'api',
      toVersion: '2.0.0',
    });
    const updated = await byName('approved-app');
    expect(updated.id).not.toBe(ids['approved-app']);
    expect(await imageOfContainer(updated.id)).toBe(from.replace(':1.0.0', ':2.0.0'));
    expect(await approvalOf('approved-app')).toMatchObject({
      id: approval.id,
      state: 'executed',
      operationId,
      decidedBy: { kind: 'anonymous' },
    });
    expect(await audit('update-approved', 'approved-app')).toHaveLength(1);
    // The next watch finds nothing pending for it: no new approval.
    await watch();
    expect((await hub.json<{ total: number }>('/api/v1/approvals?container=approved-app')).total).toBe(1);
  });

  it('rejecting skips the candidate: no update runs, and later watches leave it rejected', async () => {
    const approval = await approvalOf('rejected-app');
    const response = await hub.api(`/api/v1/approvals/${approval.id}/reject`, jsonInit('POST', { comment: 'not now' }));
    expect(response.status).toBe(200);
    expect((await byName('rejected-app')).blockers).toEqual([{ reason: 'skipped' }]);
    await watch();
    // Checked again, the skipped tag is no candidate at all: nothing is pending.
    const container = await byName('rejected-app');
    expect(container.id).toBe(ids['rejected-app']);
    expect(container.updatePolicy.skipTags).toEqual(['2.0.0']);
    expect(container.updateAvailable).toBe(false);
    expect(await approvalOf('rejected-app')).toMatchObject({ id: approval.id, state: 'rejected' });
    expect(await operationsOf('rejected-app')).toEqual([]);
    expect(await imageOfContainer(ids['rejected-app'] ?? '')).toBe(from);
    expect(await audit('update-rejected', 'rejected-app')).toHaveLength(1);
  });

  it('deferring snoozes the candidate until the time; afterwards the approval waits again, still not applied', async () => {
    const approval = await approvalOf('deferred-app');
    const until = new Date(Date.now() + 4_000).toISOString();
    const response = await hub.api(`/api/v1/approvals/${approval.id}/defer`, jsonInit('POST', { until }));
    expect(response.status).toBe(200);
    await watch();
    const snoozed = await byName('deferred-app');
    expect(snoozed.blockers?.[0]).toMatchObject({ reason: 'snoozed', liftableAt: until });
    expect(await approvalOf('deferred-app')).toMatchObject({ state: 'deferred', deferredUntil: until });
    expect(await audit('update-deferred', 'deferred-app')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(until) - Date.now() + 200));
    await watch();
    expect((await byName('deferred-app')).blockers).toBeUndefined();
    expect(await approvalOf('deferred-app')).toMatchObject({ id: approval.id, state: 'pending' });
    expect(await operationsOf('deferred-app')).toEqual([]);
    expect(await imageOfContainer(ids['deferred-app'] ?? '')).toBe(from);
  });
});
