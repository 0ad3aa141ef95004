/**
 * Update preview (http-interface §4.8) on the hub in memory: what it answers before anything
 * reaches Docker. The memory hub has no Docker host, so the preview always shows the 503 of a
 * watcher that does not run here; the accepted path runs on a real dockerd in
 * test/integration/images-bulk-updates.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import { expectJsonError, type HubClient } from '../../support/hub-harness';
import { pendingRecord, useMemoryHubWith } from '../support/memory-hub-with';

const TRIGGER = { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '2', DD_ACTION_DOCKER_UPDATE_PRUNE: 'true' };
const pending = (over: Partial<Container> = {}) => pendingRecord({ tag: '2.0.0', digest: 'sha256:feed' }, over);

interface Preview {
  target: { image: string; tag: string; digest: string | null } | null;
  blockers: { reason: string; applies: string; status?: number }[];
  canUpdate: boolean;
  [key: string]: unknown;
}

describe('POST /api/v1/containers/{id}/preview', () => {
  const hubWith = useMemoryHubWith();
  const preview = async (hub: HubClient, id: string) => {
    const response = await hub.request(`/api/v1/containers/${id}/preview`, { method: 'POST' });
    expect(response.status).toBe(200);
    return (await response.json()) as Preview;
  };

  it('shows current and target, the phases, the backup it would make, and audits `preview`, touching nothing', async () => {
    const hub = await hubWith(TRIGGER, pending());
    const body = await preview(hub, pending().id);
    expect(body).toMatchObject({
      containerId: pending().id,
      containerName: 'web',
      watcher: 'local',
      current: { image: 'web:1.0.0', tag: '1.0.0', digest: null, imageId: 'sha256:1' },
      target: { image: 'web:2.0.0', tag: '2.0.0', digest: 'sha256:feed' },
      triggerName: 'docker.update',
      phases: [
        'prepare',
        'renamed',
        'new-created',
        'old-stopped',
        'new-started',
        'health-gate',
        'health-gate-passed',
        'succeeded',
      ],
      backup: { made: true, imageReference: 'web:1.0.0', imageId: 'sha256:1', keep: 2, wouldDrop: [] },
      pruneOldImage: true,
    });
    // No Docker here: the only blocker is the watcher that does not run on this hub.
    expect(body.blockers).toEqual([expect.objectContaining({ status: 503, applies: 'manual' })]);
    expect(body.canUpdate).toBe(false);
    expect(hub.hub.parts.updates.operationsOf(pending())).toEqual([]);
    expect(hub.hub.parts.updates.unsettled()).toEqual([]);
    const audit = (await (await hub.request('/api/v1/audit?actions=preview')).json()) as { data: AuditEntry[] };
    expect(audit.data).toEqual([
      expect.objectContaining({
        action: 'preview',
        containerName: 'web',
        fromVersion: '1.0.0',
        toVersion: '2.0.0',
        status: 'blocked',
      }),
    ]);
  });

  it('lists every blocker with the status an update would get: labels, maturity, no update, snooze', async () => {
    const excluded = pending({
      id: 'b'.repeat(64),
      name: 'excluded',
      labels: { 'dd.action.exclude': 'docker.update' },
    });
    const held = pending({
      id: 'c'.repeat(64),
      name: 'held',
      blockers: [
        { reason: 'maturity-not-reached', liftableAt: '2030-01-01T00:00:00.000Z' },
        { reason: 'snoozed', liftableAt: '2030-02-01T00:00:00.000Z' },
      ],
    });
    const current = containerRecord({ id: 'd'.repeat(64), name: 'current' });
    const hub = await hubWith(TRIGGER, excluded, held, current);

    const excludedPreview = await preview(hub, excluded.id);
    expect(excludedPreview.blockers).toContainEqual(
      expect.objectContaining({ reason: 'excluded-by-labels', status: 409 }),
    );
    expect(excludedPreview).toMatchObject({ triggerName: null, backup: null, pruneOldImage: false });

    const heldPreview = await preview(hub, held.id);
    expect(heldPreview.blockers).toContainEqual(
      expect.objectContaining({ reason: 'maturity-not-reached', status: 409, applies: 'manual' }),
    );
    expect(heldPreview.blockers).toContainEqual({
      reason: 'snoozed',
      message: expect.any(String),
      applies: 'auto',
      details: { liftableAt: '2030-02-01T00:00:00.000Z' },
    });

    const currentPreview = await preview(hub, current.id);
    expect(currentPreview.target).toBeNull();
    expect(currentPreview.blockers).toContainEqual(
      expect.objectContaining({ reason: 'no-update-available', status: 400 }),
    );
  });

  it('answers 404 for an unknown container and needs containers:update', async () => {
    const hub = await hubWith(TRIGGER, pending());
    await expectJsonError(await hub.request('/api/v1/containers/nope/preview', { method: 'POST' }), 404);
    const route = hub.hub.parts.routes.routes.find(
      (candidate) => candidate.fullPath === '/api/v1/containers/:id/preview',
    );
    expect(route?.spec.access).toBe('containers:update');
  });
});
