/**
 * The refusals of the update routes (http-interface §4.8), decided before anything reaches Docker, on the
 * hub in memory with container records put in its store. The updates themselves run against a
 * real dockerd in test/integration/container-updates.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import { expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';
import { pendingRecord, useMemoryHubWith } from '../support/memory-hub-with';

const TRIGGER = { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' };
const pending = (over: Partial<Container> = {}) => pendingRecord({ tag: '2.0.0' }, over);

describe('update routes: refusals before anything is queued', () => {
  const hubWith = useMemoryHubWith();
  const update = (hub: HubClient, id: string) => hub.request(`/api/v1/containers/${id}/update`, { method: 'POST' });

  it('answers 404 for an unknown container and when no Docker action trigger covers its watcher', async () => {
    const hub = await hubWith({ DD_ACTION_DOCKER_ELSEWHERE_WATCHER: 'remote' }, pending());
    await expectJsonError(await update(hub, 'nope'), 404);
    const body = await expectJsonError(await update(hub, pending().id), 404);
    expect(body.details).toMatchObject({ reason: 'no-action-trigger', watcher: 'local' });
  });

  it('answers 403 when container actions are disabled', async () => {
    const hub = await hubWith({ ...TRIGGER, DD_SERVER_FEATURE_CONTAINERACTIONS: 'false' }, pending());
    const body = await expectJsonError(await update(hub, pending().id), 403);
    expect(body.details).toEqual({ feature: 'DD_SERVER_FEATURE_CONTAINERACTIONS' });
  });

  it('answers 409 when dd.action.exclude (or an include naming another trigger) keeps the action away (http-interface §9.8)', async () => {
    const excluded = pending({
      id: 'b'.repeat(64),
      name: 'excluded',
      labels: { 'dd.action.exclude': 'docker.update' },
    });
    const elsewhere = pending({ id: 'c'.repeat(64), name: 'elsewhere', labels: { 'dd.action.include': 'other' } });
    const byName = pending({ id: 'd'.repeat(64), name: 'by-name', labels: { 'dd.action.exclude': 'update' } });
    const hub = await hubWith(TRIGGER, excluded, elsewhere, byName);
    for (const record of [excluded, elsewhere, byName]) {
      const body = await expectJsonError(await update(hub, record.id), 409);
      expect(body.details).toMatchObject({ reason: 'excluded-by-labels', triggers: ['docker.update'] });
    }
  });

  it('answers 409 for a temporary -old- container, 400 without a pending update, 409 while the maturity gate holds', async () => {
    const temporary = pending({ id: 'e'.repeat(64), name: `web-old-${Date.now()}` });
    const current = containerRecord({ id: 'f'.repeat(64), name: 'current' });
    const held = pending({
      id: '1'.repeat(64),
      name: 'held',
      blockers: [{ reason: 'maturity-not-reached', liftableAt: '2030-01-01T00:00:00.000Z' }],
    });
    const hub = await hubWith(TRIGGER, temporary, current, held);
    expect((await expectJsonError(await update(hub, temporary.id), 409)).details).toEqual({
      reason: 'rollback-container',
    });
    expect((await expectJsonError(await update(hub, current.id), 400)).details).toEqual({
      reason: 'no-update-available',
    });
    expect((await expectJsonError(await update(hub, held.id), 409)).details).toEqual({
      reason: 'maturity-not-reached',
      liftableAt: '2030-01-01T00:00:00.000Z',
    });
  });

  it('answers 503 for a container of an edge agent that is not connected, and 503 when its watcher does not run here', async () => {
    const remote = pending({ id: '2'.repeat(64), name: 'remote', agent: 'nas' });
    const local = pending({ id: '3'.repeat(64), name: 'local' });
    const hub = await hubWith(TRIGGER, remote, local);
    expect((await expectJsonError(await update(hub, remote.id), 503)).details).toMatchObject({
      reason: 'agent-not-connected',
      agent: 'nas',
    });
    // The memory hub has no Docker access at all: no watcher can run the update.
    await expectJsonError(await update(hub, local.id), 503);
    expect(await hub.hub.parts.updates.operationsOf(local)).toEqual([]);
  });

  it('guards rollback with its confirmation header and 404s a container without backups', async () => {
    const hub = await hubWith(TRIGGER, pending());
    await expectJsonError(await hub.request(`/api/v1/containers/${pending().id}/rollback`, { method: 'POST' }), 428);
    const confirmed = jsonInit('POST', {}, { 'X-DD-Confirm-Action': 'container-rollback' });
    const body = await expectJsonError(
      await hub.request(`/api/v1/containers/${pending().id}/rollback`, confirmed),
      404,
    );
    expect(body.details).toEqual({ reason: 'no-backup' });
    const bad = jsonInit('POST', { backupId: 42 }, { 'X-DD-Confirm-Action': 'container-rollback' });
    await expectJsonError(await hub.request(`/api/v1/containers/${pending().id}/rollback`, bad), 400);
  });

  it('lists nothing for a container without history, 404s unknown containers and operations', async () => {
    const hub = await hubWith(TRIGGER, pending());
    expect(await (await hub.request(`/api/v1/containers/${pending().id}/update-operations`)).json()).toEqual({
      data: [],
      total: 0,
      limit: 20,
      offset: 0,
      hasMore: false,
    });
    expect(await (await hub.request(`/api/v1/containers/${pending().id}/backups`)).json()).toEqual({
      data: [],
      total: 0,
    });
    expect(await (await hub.request('/api/v1/containers/backups')).json()).toEqual({ data: [], total: 0 });
    await expectJsonError(await hub.request('/api/v1/containers/nope/update-operations'), 404);
    await expectJsonError(await hub.request('/api/v1/containers/nope/backups'), 404);
    await expectJsonError(await hub.request('/api/v1/update-operations/nope'), 404);
    await expectJsonError(await hub.request('/api/v1/operations/nope/cancel', { method: 'POST' }), 404);
  });

  it('needs the containers:update scope for update, rollback and cancel', async () => {
    const hub = await hubWith(
      { ...TRIGGER, DD_AUTH_BASIC_ADMIN_USER: 'admin', DD_AUTH_BASIC_ADMIN_HASH: ARGON_HASH },
      pending(),
    );
    expect((await update(hub, pending().id)).status).toBe(401);
    const routes = hub.hub.parts.routes.routes.filter((route) =>
      ['/api/v1/containers/:id/update', '/api/v1/containers/:id/rollback', '/api/v1/operations/:id/cancel'].includes(
        route.fullPath,
      ),
    );
    expect(routes.map((route) => route.spec.access)).toEqual([
      'containers:update',
      'containers:update',
      'containers:update',
    ]);
    expect(routes.find((route) => route.fullPath.endsWith('/rollback'))?.spec.confirm).toBe('container-rollback');
  });
});

// Any valid argon2id PHC string: the scope test never signs in.
const ARGON_HASH =
  '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
