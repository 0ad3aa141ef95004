/**
 * Update approvals (docs/approvals.md) on the hub in memory, container records put in its store: the
 * policy (setting and label), the approvals an update request and a detected update open, and each
 * decision with its record, audit entry, event and the container's skip or snooze. The memory hub
 * has no Docker, so an approved update is refused 503 once it passes the gate; the update itself runs
 * on a real dockerd in test/integration/update-approvals.test.ts.
 */
import { createStorage } from 'unstorage';
import { afterEach, describe, expect, it } from 'vitest';
import type { UiEvent } from '../../../hub/src/events/event-bus';
import type { Environment } from '../../../shared/config/env-source';
import type { Approval } from '../../../shared/schemas/approval';
import type { AuditEntry } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import { cookieHeader, PASSWORD, sessionIdOf, USERS_ENV } from '../../security/auth-fixtures';
import { containerRecord } from '../../support/container-fixture';
import { createMemoryHub, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';

const TRIGGER = { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' };
const REQUIRED = { 'dd.update.approval': 'required' };
const pending = (over: Partial<Container> = {}, to = '2.0.0') =>
  containerRecord({
    labels: REQUIRED,
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: to, semverDiff: 'major' },
    result: { tag: to },
    ...over,
  });

describe('approval routes', () => {
  let client: HubClient | undefined;
  let events: UiEvent[] = [];
  afterEach(async () => {
    await client?.close();
    client = undefined;
    events = [];
  });

  async function hubWith(env: Environment, ...records: Container[]): Promise<HubClient> {
    client = await createMemoryHub({ ...TRIGGER, ...env });
    for (const record of records) await client.hub.parts.containers.put(record);
    client.hub.parts.events.subscribe((event) => events.push(event));
    return client;
  }
  const update = (hub: HubClient, id: string) => hub.request(`/api/v1/containers/${id}/update`, { method: 'POST' });
  const json = async <T>(hub: HubClient, path: string): Promise<T> => {
    const response = await hub.request(path);
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };
  const list = (hub: HubClient, query = '') =>
    json<{ data: Approval[]; total: number; hasMore: boolean }>(hub, `/api/v1/approvals${query}`);
  const decide = (hub: HubClient, id: string, decision: string, body?: unknown) =>
    hub.request(`/api/v1/approvals/${id}/${decision}`, jsonInit('POST', body ?? {}));
  const audit = async (hub: HubClient, action: string) =>
    (await json<{ data: AuditEntry[] }>(hub, `/api/v1/audit?actions=${action}`)).data;

  it('leaves updates alone without the setting or the label', async () => {
    const hub = await hubWith({}, pending({ labels: {} }));
    // The memory hub cannot reach Docker: 503 is the ordinary refusal past every gate.
    await expectJsonError(await update(hub, pending().id), 503);
    expect((await list(hub)).total).toBe(0);
  });

  it('refuses an update needing approval with 409 and the id of one pending approval, however often it is asked', async () => {
    const hub = await hubWith({}, pending());
    const preview = async () => {
      const response = await hub.request(`/api/v1/containers/${pending().id}/preview`, { method: 'POST' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { blockers: { reason: string; details?: unknown }[] };
      return body.blockers.find((blocker) => blocker.reason === 'approval-required');
    };
    // The preview tells, and opens nothing.
    expect(await preview()).toMatchObject({ status: 409, applies: 'manual' });
    expect((await list(hub)).total).toBe(0);
    const first = await expectJsonError(await update(hub, pending().id), 409);
    const { reason: _reason, ...named } = first.details ?? {};
    expect((await preview())?.details).toEqual(named);
    expect(first.details).toMatchObject({ reason: 'approval-required', state: 'pending' });
    const second = await expectJsonError(await update(hub, pending().id), 409);
    expect(second.details?.['approvalId']).toBe(first.details?.['approvalId']);
    const { data, total } = await list(hub);
    expect(total).toBe(1);
    expect(data[0]).toMatchObject({
      id: first.details?.['approvalId'],
      containerName: 'web',
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      updateKind: 'tag',
      state: 'pending',
      origin: 'api',
    });
    expect(data[0]?.targetImage).toMatch(/web:2\.0\.0$/);
    expect(hub.hub.parts.updates.operationsOf(pending())).toEqual([]);
    const detail = await json<Approval>(hub, `/api/v1/approvals/${data[0]?.id}`);
    expect(detail).toEqual(data[0]);
    await expectJsonError(await hub.request('/api/v1/approvals/nope'), 404);
    expect(events.filter((event) => event.type === 'dd:approval-requested')).toHaveLength(1);
  });

  it('follows the approvalRequired setting, which the label overrides both ways', async () => {
    const plain = pending({ labels: {} });
    const exempt = pending({ id: 'b'.repeat(64), name: 'exempt', labels: { 'dd.update.approval': 'none' } });
    const hub = await hubWith({}, plain, exempt);
    const patched = await hub.request('/api/v1/settings', jsonInit('PATCH', { approvalRequired: true }));
    expect(await patched.json()).toEqual({ internetlessMode: false, updateMode: 'manual', approvalRequired: true });
    expect((await expectJsonError(await update(hub, plain.id), 409)).details?.['reason']).toBe('approval-required');
    await expectJsonError(await update(hub, exempt.id), 503);
    await expectJsonError(await hub.request('/api/v1/settings', jsonInit('PATCH', { approvalRequired: 'yes' })), 400);
  });

  it('opens an approval when an update is detected, supersedes it for a newer candidate, and filters and counts them', async () => {
    const other = pending({ id: 'c'.repeat(64), name: 'other' });
    const hub = await hubWith({}, pending(), other);
    const { approvals } = hub.hub.parts;
    await approvals.inventoryApplied([{ previous: undefined, next: pending() }]);
    await approvals.inventoryApplied([{ previous: undefined, next: other }]);
    const [first] = (await list(hub, '?container=web')).data;
    expect(first).toMatchObject({ state: 'pending', origin: 'update-available', toVersion: '2.0.0' });
    // The same observation again changes nothing; a newer candidate replaces the open approval.
    await approvals.inventoryApplied([{ previous: undefined, next: pending() }]);
    expect((await list(hub, '?container=web')).total).toBe(1);
    const newer = pending({}, '2.1.0');
    await hub.hub.parts.containers.put(newer);
    await approvals.inventoryApplied([{ previous: pending(), next: newer }]);
    const web = (await list(hub, '?container=web')).data;
    expect(web.map((approval) => [approval.toVersion, approval.state])).toEqual([
      ['2.1.0', 'pending'],
      ['2.0.0', 'superseded'],
    ]);
    expect(web[1]?.supersededBy).toBe(web[0]?.id);
    expect((await list(hub, '?state=pending')).total).toBe(2);
    expect((await list(hub, '?state=superseded&limit=1')).data).toHaveLength(1);
    expect(await json(hub, '/api/v1/approvals/summary')).toEqual({
      total: 3,
      pending: 2,
      approved: 0,
      rejected: 0,
      deferred: 0,
      superseded: 1,
      executed: 0,
    });
    await expectJsonError(await hub.request('/api/v1/approvals?state=bogus'), 400);
    // A decision on the superseded one is refused: it is not open any more.
    expect((await expectJsonError(await decide(hub, web[1]?.id ?? '', 'approve'), 409)).details).toMatchObject({
      reason: 'approval-decided',
      state: 'superseded',
    });
  });

  it('rejects: the candidate joins the skips, who and when are recorded, audited, and the update stays refused', async () => {
    const hub = await hubWith({}, pending());
    const id = (await expectJsonError(await update(hub, pending().id), 409)).details?.['approvalId'] as string;
    const response = await decide(hub, id, 'reject', { comment: 'breaks the plugin' });
    expect(response.status).toBe(200);
    const rejected = (await response.json()) as Approval;
    expect(rejected).toMatchObject({
      state: 'rejected',
      decidedBy: { kind: 'anonymous' },
      comment: 'breaks the plugin',
    });
    expect(Date.parse(rejected.decidedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const container = await json<Container>(hub, `/api/v1/containers/${pending().id}`);
    expect(container.updatePolicy.skipTags).toEqual(['2.0.0']);
    expect(container.blockers).toEqual([{ reason: 'skipped' }]);
    const [entry] = await audit(hub, 'update-rejected');
    expect(entry).toMatchObject({ containerName: 'web', toVersion: '2.0.0', status: 'rejected' });
    expect(entry?.details).toContain('breaks the plugin');
    expect((await expectJsonError(await update(hub, pending().id), 409)).details).toMatchObject({
      reason: 'approval-rejected',
      approvalId: id,
    });
    await expectJsonError(await decide(hub, id, 'reject'), 409);
    await expectJsonError(await decide(hub, id, 'reject', { comment: 7 }), 400);
    const updated = events.filter((event) => event.type === 'dd:approval-updated');
    expect(updated.map((event) => (event.data as Approval).state)).toEqual(['rejected']);
  });

  it('defers by hours or until a time: the container is snoozed, the approval waits again once it lapses', async () => {
    const hub = await hubWith({}, pending());
    const id = (await expectJsonError(await update(hub, pending().id), 409)).details?.['approvalId'] as string;
    await expectJsonError(await decide(hub, id, 'defer', {}), 400);
    await expectJsonError(await decide(hub, id, 'defer', { hours: 2, until: '2030-01-01T00:00:00Z' }), 400);
    await expectJsonError(await decide(hub, id, 'defer', { until: '2001-01-01T00:00:00Z' }), 400);
    await expectJsonError(await decide(hub, id, 'defer', { hours: 0 }), 400);
    const before = Date.now();
    const response = await decide(hub, id, 'defer', { hours: 2 });
    expect(response.status).toBe(200);
    const deferred = (await response.json()) as Approval;
    expect(deferred.state).toBe('deferred');
    const until = Date.parse(deferred.deferredUntil ?? '');
    expect(until).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(until).toBeLessThan(Date.now() + 2 * 3_600_000 + 1_000);
    const container = await json<Container>(hub, `/api/v1/containers/${pending().id}`);
    expect(Date.parse(container.updatePolicy.snoozeUntil ?? '')).toBe(until);
    expect(container.blockers?.[0]?.reason).toBe('snoozed');
    expect((await audit(hub, 'update-deferred'))[0]?.details).toContain(deferred.deferredUntil);
    // Deferred again, to an instant.
    const again = await decide(hub, id, 'defer', { until: '2030-01-01T00:00:00Z' });
    expect(((await again.json()) as Approval).deferredUntil).toBe('2030-01-01T00:00:00.000Z');
  });

  it('approves: recorded and audited, the snooze of a deferral lifted, and the update passes the gate', async () => {
    const hub = await hubWith({}, pending());
    const id = (await expectJsonError(await update(hub, pending().id), 409)).details?.['approvalId'] as string;
    await decide(hub, id, 'defer', { hours: 1 });
    // Past the gate the memory hub has no Docker to run it on: the approval stays approved for the next request.
    await expectJsonError(await decide(hub, id, 'approve'), 503);
    const approved = await json<Approval>(hub, `/api/v1/approvals/${id}`);
    expect(approved).toMatchObject({ state: 'approved', decidedBy: { kind: 'anonymous' } });
    expect((await json<Container>(hub, `/api/v1/containers/${pending().id}`)).updatePolicy.snoozeUntil).toBeUndefined();
    expect(await audit(hub, 'update-approved')).toHaveLength(1);
    await expectJsonError(await update(hub, pending().id), 503);
    await expectJsonError(await decide(hub, id, 'defer', { hours: 1 }), 409);
  });

  it('keeps approvals and decisions across a restart on the same storage', async () => {
    const storage = createStorage();
    client = await createMemoryHub(TRIGGER, { storage });
    await client.hub.parts.containers.put(pending());
    const id = (await expectJsonError(await update(client, pending().id), 409)).details?.['approvalId'] as string;
    expect((await decide(client, id, 'defer', { hours: 3 })).status).toBe(200);
    await client.close();
    client = await createMemoryHub(TRIGGER, { storage });
    const again = await json<Approval>(client, `/api/v1/approvals/${id}`);
    expect(again).toMatchObject({ id, state: 'deferred', decidedBy: { kind: 'anonymous' } });
    // The restarted hub still gates the same candidate with the same approval.
    expect((await expectJsonError(await update(client, pending().id), 409)).details).toMatchObject({
      reason: 'approval-required',
      approvalId: id,
      state: 'deferred',
    });
  });

  it('records the signed-in user and the API key that decided; a key without containers:update is refused', async () => {
    const other = pending({ id: 'd'.repeat(64), name: 'other' });
    const hub = await hubWith(USERS_ENV, pending(), other);
    const login = await hub.request('/api/v1/auth/login', jsonInit('POST', { username: 'alice', password: PASSWORD }));
    expect(login.status).toBe(200);
    const session = cookieHeader(sessionIdOf(login) ?? '');
    const { approvals } = hub.hub.parts;
    await approvals.inventoryApplied([{ previous: undefined, next: pending() }]);
    await approvals.inventoryApplied([{ previous: undefined, next: other }]);
    const [forWeb] = approvals.list({ container: 'web' });
    const [forOther] = approvals.list({ container: 'other' });
    const rejected = await hub.request(`/api/v1/approvals/${forWeb?.id}/reject`, jsonInit('POST', {}, session));
    expect(((await rejected.json()) as Approval).decidedBy).toEqual({ kind: 'user', name: 'alice' });
    const keyFor = async (scopes: string[]) => {
      const created = await hub.request('/api/v1/api-keys', jsonInit('POST', { name: 'approver', scopes }, session));
      expect(created.status).toBe(201);
      return ((await created.json()) as { apiKey: string }).apiKey;
    };
    const reader = { authorization: `Bearer ${await keyFor(['read'])}` };
    const updater = { authorization: `Bearer ${await keyFor(['containers:update'])}` };
    expect((await hub.request('/api/v1/approvals', { headers: reader })).status).toBe(200);
    const refused = await hub.request(
      `/api/v1/approvals/${forOther?.id}/defer`,
      jsonInit('POST', { hours: 1 }, reader),
    );
    expect((await expectJsonError(refused, 403)).details).toEqual({ requiredScope: 'containers:update' });
    const deferred = await hub.request(
      `/api/v1/approvals/${forOther?.id}/defer`,
      jsonInit('POST', { hours: 1 }, updater),
    );
    expect(deferred.status).toBe(200);
    const decidedBy = ((await deferred.json()) as Approval).decidedBy;
    expect(decidedBy?.kind).toBe('api-key');
    expect(decidedBy?.name).toMatch(/\S/);
  });
});
