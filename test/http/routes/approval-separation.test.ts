/**
 * Separation of duties for update approvals (DD_APPROVALS_SEPARATE, docs/approvals.md "Separation of
 * duties", issue 33 item 6), on the hub in memory with basic users: who requested an update cannot
 * approve it, with their session or a key they minted; deciding needs `approvals:decide`, which
 * `containers:update` does not imply; overriding `dd.update.approval` needs `admin`. Off, none of it applies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Approval } from '../../../shared/schemas/approval';
import { BOB_PASSWORD, cookieHeader, PASSWORD, sessionIdOf, totp, USERS_ENV } from '../../security/auth-fixtures';
import { containerRecord } from '../../support/container-fixture';
import { createMemoryHub, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';

const TRIGGER = { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' };
const SEPARATE = { DD_APPROVALS_SEPARATE: 'true' };
const web = containerRecord({
  labels: { 'dd.update.approval': 'required' },
  updateAvailable: true,
  updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
  result: { tag: '2.0.0' },
});

type Headers = Record<string, string>;

describe('separation of duties for approvals', () => {
  let client: HubClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  async function hubWith(env: Record<string, string>) {
    const hub = await createMemoryHub({ ...TRIGGER, ...USERS_ENV, ...env });
    client = hub;
    await hub.hub.parts.containers.put(web);
    const signIn = async (body: Record<string, unknown>) => {
      const response = await hub.request('/api/v1/auth/login', jsonInit('POST', body));
      expect(response.status).toBe(200);
      return cookieHeader(sessionIdOf(response) ?? '');
    };
    const alice = await signIn({ username: 'alice', password: PASSWORD });
    const keyOf = async (session: Headers, scopes: string[]): Promise<Headers> => {
      const created = await hub.request('/api/v1/api-keys', jsonInit('POST', { name: 'k', scopes }, session));
      expect(created.status).toBe(201);
      return { authorization: `Bearer ${((await created.json()) as { apiKey: string }).apiKey}` };
    };
    const requestUpdate = async (headers: Headers): Promise<string> => {
      const refused = await hub.request(`/api/v1/containers/${web.id}/update`, { method: 'POST', headers });
      return (await expectJsonError(refused, 409)).details?.['approvalId'] as string;
    };
    const decide = (id: string, decision: string, headers: Headers, body: unknown = {}) =>
      hub.request(`/api/v1/approvals/${id}/${decision}`, jsonInit('POST', body, headers));
    const overrides = (method: string, headers: Headers, body?: unknown) =>
      hub.request(
        `/api/v1/containers/${web.id}/label-overrides`,
        body === undefined ? { method, headers } : jsonInit(method, body, headers),
      );
    return { hub, alice, signIn, keyOf, requestUpdate, decide, overrides };
  }

  it('refuses the requester (session, or a key it minted) the approval; another user approves', async () => {
    const { hub, alice, signIn, keyOf, requestUpdate, decide } = await hubWith(SEPARATE);
    const id = await requestUpdate(alice);
    const approval = hub.hub.parts.approvals.get(id);
    expect(approval?.requestedBy).toEqual([{ kind: 'user', name: 'alice' }]);

    const own = await expectJsonError(await decide(id, 'approve', alice), 403);
    expect(own.details).toEqual({ reason: 'separation-of-duties' });
    const aliceKey = await keyOf(alice, ['approvals:decide']);
    expect((await expectJsonError(await decide(id, 'approve', aliceKey), 403)).details?.['reason']).toBe(
      'separation-of-duties',
    );
    // Requesting is not deciding for the others: the requester may still defer (or reject) it.
    expect((await decide(id, 'defer', alice, { hours: 1 })).status).toBe(200);
    // A key that asks for the update is remembered as well, and stands for the user who minted it.
    const updater = await keyOf(alice, ['containers:update']);
    await requestUpdate(updater);
    expect(hub.hub.parts.approvals.get(id)?.requestedBy).toHaveLength(2);

    const bob = await signIn({ username: 'bob', password: BOB_PASSWORD, otp: totp(Date.now()) });
    // Past the gate the memory hub has no Docker to run it on (503): the approval is approved.
    await expectJsonError(await decide(id, 'approve', bob), 503);
    expect(hub.hub.parts.approvals.get(id)).toMatchObject({
      state: 'approved',
      decidedBy: { kind: 'user', name: 'bob' },
    } satisfies Partial<Approval>);
  });

  it('remembers the requester of every API route that asks for the update: bulk, Docker trigger, dependency group', async () => {
    const { hub, alice, keyOf, requestUpdate, decide } = await hubWith(SEPARATE);
    const id = await requestUpdate(alice);
    const [viaTrigger, viaGroup] = [
      await keyOf(alice, ['containers:update']),
      await keyOf(alice, ['containers:update']),
    ];
    const bulk = await hub.request('/api/v1/containers/update', jsonInit('POST', { containerIds: [web.id] }, alice));
    expect(bulk.status).toBe(202);
    const trigger = await hub.request(`/api/v1/containers/${web.id}/triggers/docker/update`, {
      method: 'POST',
      headers: viaTrigger,
    });
    await expectJsonError(trigger, 409);
    const group = await hub.request(`/api/v1/dependency-groups/${web.id}/update`, {
      method: 'POST',
      headers: { ...viaGroup, 'x-dd-confirm-action': 'dependency-group-update' },
    });
    expect(group.status).toBe(202);
    const requesters = hub.hub.parts.approvals.get(id)?.requestedBy ?? [];
    expect(requesters.map((actor) => actor.kind)).toEqual(['user', 'api-key', 'api-key']);
    const decider = await keyOf(alice, ['approvals:decide']);
    await expectJsonError(await decide(id, 'approve', decider), 403);
  });

  it('needs approvals:decide to approve, reject or defer; containers:update does not imply it', async () => {
    const { hub, alice, keyOf, requestUpdate, decide } = await hubWith(SEPARATE);
    const id = await requestUpdate(alice);
    const updater = await keyOf(alice, ['containers:update']);
    for (const [decision, body] of [
      ['approve', {}],
      ['reject', {}],
      ['defer', { hours: 1 }],
    ] as const) {
      const refused = await expectJsonError(await decide(id, decision, updater, body), 403);
      expect(refused.details).toEqual({ requiredScope: 'approvals:decide' });
    }
    // Bad input still gets its 4xx; a decider key rejects.
    const decider = await keyOf(alice, ['approvals:decide']);
    await expectJsonError(await decide(id, 'defer', decider, { hours: 'soon' }), 400);
    await expectJsonError(await decide('nope', 'reject', decider), 404);
    expect((await decide(id, 'reject', decider)).status).toBe(200);
    const document = await (await hub.request('/api/v1/openapi.json')).json();
    expect(document.paths['/api/v1/approvals/{id}/approve'].post['x-required-scope']).toBe('approvals:decide');
  });

  it('needs admin to set, change or clear the dd.update.approval override; other labels need containers:update', async () => {
    const { alice, keyOf, overrides } = await hubWith(SEPARATE);
    const updater = await keyOf(alice, ['containers:update']);
    const admin = await keyOf(alice, ['admin']);
    const lift = { set: { 'dd.update.approval': 'none' } };
    const refused = await expectJsonError(await overrides('PATCH', updater, lift), 403);
    expect(refused.details).toMatchObject({ requiredScope: 'admin', label: 'dd.update.approval' });
    await expectJsonError(await overrides('PUT', updater, { labels: { 'dd.update.approval': 'none' } }), 403);
    await expectJsonError(await overrides('PATCH', updater, { set: { 'dd.update.approval': 'maybe' } }), 400);
    expect((await overrides('PATCH', updater, { set: { 'dd.group': 'front' } })).status).toBe(200);
    expect((await overrides('PATCH', admin, lift)).status).toBe(200);
    // Keeping it as it is passes; clearing it, by any of the routes, does not.
    const kept = { labels: { 'dd.update.approval': 'none', 'dd.group': 'back' } };
    expect((await overrides('PUT', updater, kept)).status).toBe(200);
    await expectJsonError(await overrides('PUT', updater, { labels: {} }), 403);
    await expectJsonError(await overrides('PATCH', updater, { unset: ['dd.update.approval'] }), 403);
    await expectJsonError(await overrides('DELETE', updater), 403);
    const identity = encodeURIComponent(`__local__::local::web`);
    const byIdentity = await client?.request(`/api/v1/label-overrides/containers/${identity}`, {
      method: 'DELETE',
      headers: updater,
    });
    await expectJsonError(byIdentity as Response, 403);
    expect((await overrides('DELETE', admin)).status).toBe(200);
    // A session holds every scope, as everywhere.
    expect((await overrides('PATCH', alice, lift)).status).toBe(200);
  });

  it('is off by default: the requester approves, containers:update decides and overrides the label', async () => {
    const { hub, alice, keyOf, requestUpdate, decide, overrides } = await hubWith({});
    const id = await requestUpdate(alice);
    const updater = await keyOf(alice, ['containers:update']);
    expect((await decide(id, 'defer', updater, { hours: 1 })).status).toBe(200);
    await expectJsonError(await decide(id, 'approve', alice), 503);
    expect(hub.hub.parts.approvals.get(id)?.state).toBe('approved');
    expect((await overrides('PATCH', updater, { set: { 'dd.update.approval': 'none' } })).status).toBe(200);
  });
});
