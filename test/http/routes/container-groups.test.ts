/**
 * GET /api/v1/containers/groups and the refusals of the dependency-group update route, on the hub
 * in memory with container records put in its store. The waves themselves run against a real
 * dockerd in test/integration/dependency-group-updates.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import { expectJsonError } from '../../support/hub-harness';
import { useMemoryHubWith } from '../support/memory-hub-with';

const CONFIRM = { 'X-DD-Confirm-Action': 'dependency-group-update' };
/** A record as the watcher writes it: `group` is dd.group, else the compose project (container-labels.ts). */
function record(name: string, labels: Record<string, string>, over: Partial<Container> = {}): Container {
  const group = labels['dd.group'] || labels['com.docker.compose.project'];
  return containerRecord({ id: name.padEnd(64, '0'), name, labels, ...(group && { group }), ...over });
}
const compose = (project: string, service: string, dependsOn?: string) => ({
  'com.docker.compose.project': project,
  'com.docker.compose.service': service,
  ...(dependsOn !== undefined && { 'com.docker.compose.depends_on': `${dependsOn}:service_started:false` }),
});

describe('container groups', () => {
  const hubWith = useMemoryHubWith();

  it('groups by dd.group, else by compose project per host, with dependencies both ways', async () => {
    const hub = await hubWith(
      {},
      record('db', compose('shop', 'db')),
      record('api', compose('shop', 'api', 'db'), { updateAvailable: true }),
      record('remote-db', compose('shop', 'db'), { agent: 'far' }),
      record('grafana', { 'dd.group': 'monitoring', ...compose('shop', 'grafana') }),
      record('prometheus', { 'dd.group': 'monitoring' }, { agent: 'far' }),
      record('loner', {}),
    );
    const response = await hub.request('/api/v1/containers/groups');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { total: number; data: Record<string, unknown>[] };
    expect(body.total).toBe(3);
    expect(body.data).toEqual([
      {
        name: 'monitoring',
        kind: 'label',
        watcher: null,
        agent: null,
        total: 2,
        updatesAvailable: 0,
        containers: [
          expect.objectContaining({ name: 'grafana', dependsOn: [], dependents: [] }),
          expect.objectContaining({ name: 'prometheus' }),
        ],
      },
      {
        name: 'shop',
        kind: 'compose',
        watcher: 'local',
        agent: null,
        total: 2,
        updatesAvailable: 1,
        containers: [
          { id: 'api'.padEnd(64, '0'), name: 'api', updateAvailable: true, dependsOn: ['db'], dependents: [] },
          { id: 'db'.padEnd(64, '0'), name: 'db', updateAvailable: false, dependsOn: [], dependents: ['api'] },
        ],
      },
      expect.objectContaining({ name: 'shop', agent: 'far', total: 1 }),
    ]);
  });

  it('refuses a dependency-group update before anything is queued: 428, 404, 400, 409 cycle, 403 disabled', async () => {
    const hub = await hubWith(
      { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' },
      record('db', {}),
      record('a', { 'dd.depends_on': 'db,b' }),
      record('b', { 'dd.depends_on': 'a' }),
      record('solo', {}),
    );
    const post = (id: string, headers: Record<string, string> = CONFIRM) =>
      hub.request(`/api/v1/dependency-groups/${id}/update`, { method: 'POST', headers });
    await expectJsonError(await post('db', {}), 428);
    await expectJsonError(await post('nope'), 404);
    const none = await expectJsonError(await post('solo'.padEnd(64, '0')), 400);
    expect(none.details).toEqual({ reason: 'no-update-available' });
    const cycle = await expectJsonError(await post('db'.padEnd(64, '0')), 409);
    expect(cycle.details).toEqual({ reason: 'dependency-cycle', containers: ['a', 'b'] });
    expect(hub.hub.parts.updates.unsettled()).toEqual([]);
    // Starting a second hub closes the first.
    const disabled = await hubWith({ DD_SERVER_FEATURE_CONTAINERACTIONS: 'false' }, record('db', {}));
    await expectJsonError(
      await disabled.request(`/api/v1/dependency-groups/${'db'.padEnd(64, '0')}/update`, {
        method: 'POST',
        headers: CONFIRM,
      }),
      403,
    );
  });
});
