import { beforeAll, expect, it } from 'vitest';
import type { UiEvent } from '../../../hub/src/events/event-bus';
import type { Container } from '../../../shared/schemas/container';
import type { EffectiveGroupPolicy, GroupPolicy } from '../../../shared/schemas/group-policy';
import type { Rollout } from '../../../shared/schemas/rollout';
import { containerRecord } from '../../support/container-fixture';
import { describeHubMatrix, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';
import { apiV1 } from '../support/api-v1';

// The group-policy and rollout routes of hub/src/routes/{group-policy,rollout}-routes.ts over records
// put straight into the store (no Docker): validation, precedence with sources, audit, events, and
// the rollout refusals. Rollouts that update containers on real dockerds: test/integration/rollouts-e2e.

const id = (n: number) => n.toString(16).padStart(64, '0');
const pending = {
  updateAvailable: true,
  updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
  result: { tag: '2.0.0' },
} as const;

const RECORDS: Container[] = [
  containerRecord({ id: id(1), name: 'web-1', group: 'shop', labels: { 'dd.group': 'shop' }, ...pending }),
  containerRecord({
    id: id(2),
    name: 'web-2',
    group: 'shop',
    labels: { 'dd.group': 'shop', 'dd.update.approval': 'none' },
  }),
  containerRecord({ id: id(3), name: 'db', agent: 'edge-1', labels: {} }),
];

describeHubMatrix('group-policy routes', (client: () => HubClient, mode) => {
  const { request, ok } = apiV1(client);
  const effective = (n: number) => ok<EffectiveGroupPolicy>(`/containers/${id(n)}/group-policy`);

  beforeAll(async () => {
    for (const record of RECORDS) await client().hub.parts.containers.put(record);
  });

  it('refuses unknown scopes, bad names and bad bodies, storing nothing', async () => {
    await expectJsonError(await request('/group-policies/team/shop', jsonInit('PUT', {})), 404);
    await expectJsonError(await request('/group-policies/group/a%20b', jsonInit('PUT', {})), 400);
    await expectJsonError(await request('/group-policies/group/shop', jsonInit('PUT', { updateMode: 'always' })), 400);
    await expectJsonError(await request('/group-policies/group/shop', jsonInit('PUT', { extra: true })), 400);
    await expectJsonError(
      await request('/group-policies/group/shop', jsonInit('PUT', { windows: [{ start: '25:00', end: '01:00' }] })),
      400,
    );
    await expectJsonError(
      await request('/group-policies/group/shop', jsonInit('PUT', { rollout: { waveSize: 0 } })),
      400,
    );
    await expectJsonError(await request('/group-policies/group/shop'), 404);
    await expectJsonError(await request('/group-policies/group/shop', { method: 'DELETE' }), 404);
    expect(await ok('/group-policies')).toEqual({ data: [], total: 0 });
  });

  it('sets, lists, reads and clears policies, audited and announced; the container shows each value with its source', async () => {
    const events: UiEvent[] = [];
    const subscription =
      mode === 'memory' ? client().hub.parts.events.subscribe((event) => events.push(event)) : undefined;
    expect((await effective(1)).effective).toEqual({
      updateMode: { value: 'manual', source: 'setting' },
      approvalRequired: { value: false, source: 'setting' },
    });

    const agent = await ok<GroupPolicy>(
      '/group-policies/agent/__local__',
      jsonInit('PUT', { updateMode: 'auto', approvalRequired: true, windows: [{ start: '22:00', end: '04:00' }] }),
    );
    expect(agent).toMatchObject({ scope: 'agent', name: '__local__', updateMode: 'auto', approvalRequired: true });
    const group = await ok<GroupPolicy>(
      '/group-policies/group/shop',
      jsonInit('PUT', {
        approvalRequired: false,
        maturityMode: 'mature',
        maturityMinAgeDays: 3,
        rollout: { waveSize: 2, pauseSeconds: 30 },
      }),
    );
    expect(group.rollout).toEqual({ waveSize: 2, pauseSeconds: 30, automatic: false });
    expect((await ok<{ data: GroupPolicy[] }>('/group-policies')).data.map((p) => `${p.scope}:${p.name}`)).toEqual([
      'agent:__local__',
      'group:shop',
    ]);
    expect(await ok('/group-policies/group/shop')).toEqual(group);

    // Group > agent > setting; the container's own label beats them all.
    const web1 = await effective(1);
    expect(web1).toMatchObject({ group: 'shop', host: '__local__:local' });
    expect(web1.policies.map((p) => p.scope)).toEqual(['agent', 'group']);
    expect(web1.effective).toEqual({
      updateMode: { value: 'auto', source: 'agent-policy' },
      approvalRequired: { value: false, source: 'group-policy' },
      maturityMode: { value: 'mature', source: 'group-policy' },
      maturityMinAgeDays: { value: 3, source: 'group-policy' },
      windows: { value: [{ start: '22:00', end: '04:00' }], source: 'agent-policy' },
      rollout: { value: { waveSize: 2, pauseSeconds: 30, automatic: false }, source: 'group-policy' },
    });
    await ok(`/containers/${id(2)}/label-overrides`, jsonInit('PUT', { labels: { 'dd.update.approval': 'required' } }));
    expect((await effective(2)).effective.approvalRequired).toEqual({ value: true, source: 'override' });
    await ok(`/containers/${id(2)}/label-overrides`, { method: 'DELETE' });
    expect((await effective(2)).effective.approvalRequired).toEqual({ value: false, source: 'label' });
    // Another agent's container: the hub's agent policy is not its own.
    expect((await effective(3)).effective.updateMode).toEqual({ value: 'manual', source: 'setting' });

    expect(await ok('/group-policies/group/shop', { method: 'DELETE' })).toEqual(group);
    await expectJsonError(await request('/group-policies/group/shop'), 404);
    expect((await effective(1)).effective.approvalRequired).toEqual({ value: true, source: 'agent-policy' });
    await ok('/group-policies/agent/__local__', { method: 'DELETE' });

    const audit = await ok<{ data: { action: string; details?: string }[] }>(
      '/audit?actions=group-policy-set,group-policy-cleared',
    );
    expect(audit.data.map((entry) => entry.action).sort()).toEqual([
      'group-policy-cleared',
      'group-policy-cleared',
      'group-policy-set',
      'group-policy-set',
    ]);
    expect(audit.data.some((entry) => entry.details?.includes('group shop'))).toBe(true);
    if (subscription) {
      subscription.unsubscribe();
      const changes = events.filter((event) => event.type === 'dd:group-policy-updated').map((event) => event.data);
      expect(changes).toHaveLength(4);
      expect(changes.at(-1)).toEqual({ scope: 'agent', name: '__local__', policy: null });
    }
  });

  it("a group's approvalRequired gates its containers' updates (the approvals' seam); clearing it lifts that", async () => {
    const reasons = async () =>
      (await ok<{ blockers: { reason: string }[] }>(`/containers/${id(1)}/preview`, { method: 'POST' })).blockers.map(
        (blocker) => blocker.reason,
      );
    expect(await reasons()).not.toContain('approval-required');
    await ok('/group-policies/group/shop', jsonInit('PUT', { approvalRequired: true }));
    expect(await reasons()).toContain('approval-required');
    await ok('/group-policies/group/shop', { method: 'DELETE' });
    expect(await reasons()).not.toContain('approval-required');
  });

  it('refuses a rollout with nothing to roll out and unknown rollouts', async () => {
    const none = await expectJsonError(
      await request('/rollouts', jsonInit('POST', { image: 'registry.test/nothing' })),
      409,
    );
    expect(none.details).toMatchObject({ reason: 'no-candidates' });
    await expectJsonError(await request('/rollouts', jsonInit('POST', { image: '' })), 400);
    await expectJsonError(await request('/rollouts', jsonInit('POST', { image: 'x', waveSize: 0 })), 400);
    await expectJsonError(await request('/rollouts/nope'), 404);
    await expectJsonError(await request('/rollouts/nope/pause', { method: 'POST' }), 404);
    expect(await ok<{ data: Rollout[]; total: number }>('/rollouts')).toMatchObject({ data: [], total: 0 });
  });
});
