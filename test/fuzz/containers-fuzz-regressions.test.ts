/**
 * Bugs the container fuzz led to (now fixed), each kept as a focused regression test.
 * Kept apart from containers-fuzz.test.ts so each bug reads on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { containerRecord } from '../support/container-fixture';
import { createMemoryHub, type HubClient, jsonInit } from '../support/hub-harness';

/**
 * A record as a watch cycle stores it for a container labelled `dd.updatePolicy.snoozeUntil`
 * with a newer tag: buildContainerRecord/checkContainer make the label policy (with any API policy
 * on top, which wins) the record's updatePolicy, and the snooze a blocker. The shared fixture's `web` on
 * watcher `local` (../support/container-fixture), its image moved to a loopback registry.
 */
const SNOOZED_BY_LABEL: Container = containerRecord({
  labels: { 'dd.updatePolicy.snoozeUntil': '2031-01-01' },
  image: {
    ...containerRecord().image,
    id: `sha256:${'b'.repeat(64)}`,
    registry: { url: '127.0.0.1:5000' },
    name: 'test/app',
  },
  result: { tag: '2.0.0' },
  updateAvailable: true,
  updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
  updatePolicy: { snoozeUntil: '2031-01-01' },
  blockers: [{ reason: 'snoozed', liftableAt: '2031-01-01T00:00:00.000Z' }],
  createdAt: '2024-01-01T00:00:00.000Z',
  firstSeenAt: '2024-01-01T00:00:00.000Z',
  checkedAt: '2024-01-02T00:00:00.000Z',
});

describe('regression: label-policy-dropped: PATCH update-policy answers and stores a record without its dd.updatePolicy.* label policy', () => {
  let hub: HubClient;
  beforeAll(async () => {
    hub = await createMemoryHub();
    await hub.hub.parts.containers.put(SNOOZED_BY_LABEL);
  });
  afterAll(() => hub.close());

  it('regression: setting the maturity policy through the API keeps the label snooze and its blocker, as the next watch cycle would show them', async () => {
    const path = `/api/v1/containers/${SNOOZED_BY_LABEL.id}/update-policy`;
    const response = await hub.request(path, jsonInit('PATCH', { action: 'set-maturity-policy', mode: 'all' }));
    const served = (await response.json()) as Container;
    const stored = hub.hub.parts.containers.get(SNOOZED_BY_LABEL.id);
    // Observed today: updatePolicy {maturityMode: 'all'} and no blockers, in the answer, the store and the
    // dd:container-updated event, until the next check merges the labels back (effectivePolicy).
    const expected = {
      updatePolicy: { snoozeUntil: '2031-01-01', maturityMode: 'all' },
      blockers: [{ reason: 'snoozed', liftableAt: '2031-01-01T00:00:00.000Z' }],
    };
    expect({ status: response.status, updatePolicy: served.updatePolicy, blockers: served.blockers }).toEqual({
      status: 200,
      ...expected,
    });
    expect({ updatePolicy: stored?.updatePolicy, blockers: stored?.blockers }).toEqual(expected);
  });
});
