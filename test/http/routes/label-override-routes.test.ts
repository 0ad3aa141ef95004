import { beforeAll, expect, it } from 'vitest';
import type { UiEvent } from '../../../hub/src/events/event-bus';
import type { Container } from '../../../shared/schemas/container';
import type { GlobalLabelOverride } from '../../../shared/schemas/label-override';
import { containerRecord } from '../../support/container-fixture';
import { describeHubMatrix, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';
import { apiV1 } from '../support/api-v1';

// The label-override routes of hub/src/routes/label-override-routes.ts over records put straight
// into the store (no Docker, so no re-check): validation, precedence, sources, audit and events.
// Re-creation and re-checks on a real Docker Engine: test/integration/label-overrides-e2e.

const id = (n: number) => n.toString(16).padStart(64, '0');

const RECORDS: Container[] = [
  containerRecord({
    id: id(1),
    name: 'web-1',
    labels: { 'dd.group': 'shop' },
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
    result: { tag: '2.0.0' },
  }),
  containerRecord({ id: id(2), name: 'web-2', labels: { 'dd.display.name': 'Second' } }),
  containerRecord({ id: id(3), name: 'db', labels: { 'dd.watch': 'false' }, watched: false }),
];

describeHubMatrix('label-override routes', (client: () => HubClient, mode) => {
  const { request, ok } = apiV1(client);
  const put = (containerId: string, labels: Record<string, string>) =>
    request(`/containers/${containerId}/label-overrides`, jsonInit('PUT', { labels }));
  const container = (n: number) => ok<Container>(`/containers/${id(n)}`);
  const auditActions = async () =>
    (await ok<{ data: { action: string; containerName?: string }[] }>('/audit?limit=100')).data.map(
      (entry) => `${entry.action}:${entry.containerName ?? ''}`,
    );

  beforeAll(async () => {
    for (const record of RECORDS) await client().hub.parts.containers.put(record);
  });

  it('refuses keys the hub does not read, hooks and bad values, naming the key', async () => {
    const hook = await expectJsonError(await put(id(1), { 'dd.hook.pre': 'rm -rf /' }), 400);
    expect(JSON.stringify(hook)).toContain('dd.hook.pre');
    await expectJsonError(await put(id(1), { 'com.example': 'x' }), 400);
    const flag = await expectJsonError(await put(id(1), { 'dd.watch': 'maybe' }), 400);
    expect(flag.details).toMatchObject({ label: 'dd.watch' });
    const regex = await expectJsonError(await put(id(1), { 'dd.tag.include': '^(1' }), 400);
    expect(regex.details).toMatchObject({ label: 'dd.tag.include' });
    const policy = await expectJsonError(await put(id(1), { 'dd.updatePolicy.maturityMode': 'sometimes' }), 400);
    expect(policy.details).toMatchObject({ label: 'dd.updatePolicy.maturityMode' });
    const window = await expectJsonError(await put(id(1), { 'dd.rollback.window': 'soon' }), 400);
    expect(window.details).toMatchObject({ label: 'dd.rollback.window' });
    await expectJsonError(await put(id(99), { 'dd.watch': 'false' }), 404);
    // Nothing was stored by the refusals.
    expect(await ok(`/containers/${id(1)}/label-overrides`)).toMatchObject({ labels: {}, globalOverrides: [] });
  });

  it('shows every effective dd.* value with its source', async () => {
    const web2 = await container(2);
    expect(web2.effectiveLabels).toBeUndefined(); // a record stored before overrides existed
    const db = await ok<Container>(`/containers/${id(3)}/label-overrides`, jsonInit('PUT', { labels: {} }));
    expect(db.effectiveLabels).toEqual({
      'dd.watch': { value: 'false', source: 'label' },
      'dd.watch.digest': { value: 'false', source: 'default' },
      'dd.webhook.enabled': { value: 'true', source: 'default' },
    });
    expect(db.watched).toBe(false);
  });

  it('an override dd.watch=false hides the update at once, with an event; clearing it restores the label', async () => {
    const events: UiEvent[] = [];
    const subscription =
      mode === 'memory' ? client().hub.parts.events.subscribe((event) => events.push(event)) : undefined;
    const hidden = await ok<Container>(
      `/containers/${id(1)}/label-overrides`,
      jsonInit('PUT', { labels: { 'dd.watch': 'false' } }),
    );
    expect(hidden).toMatchObject({ watched: false, updateAvailable: false, updateKind: { kind: 'unknown' } });
    expect(hidden.result).toBeUndefined();
    expect(hidden.effectiveLabels?.['dd.watch']).toEqual({ value: 'false', source: 'override' });
    expect(hidden.effectiveLabels?.['dd.group']).toEqual({ value: 'shop', source: 'label' });
    expect(hidden.labels).toEqual({ 'dd.group': 'shop' }); // the container's own labels are untouched
    expect(await container(1)).toMatchObject({ watched: false, updateAvailable: false });
    expect(await ok(`/containers/${id(1)}/label-overrides`)).toMatchObject({
      containerId: id(1),
      identity: '__local__::local::web-1',
      labels: { 'dd.watch': 'false' },
    });
    if (subscription) {
      expect(
        events.filter((event) => event.type === 'dd:container-updated').map((event) => (event.data as Container).id),
      ).toContain(id(1));
      subscription.unsubscribe();
    }
    const summary = await ok<{ containers: { updatesAvailable: number } }>('/containers/summary');
    expect(summary.containers.updatesAvailable).toBe(0);

    const cleared = await ok<Container>(`/containers/${id(1)}/label-overrides`, { method: 'DELETE' });
    expect(cleared.watched).toBe(true);
    expect(cleared.effectiveLabels?.['dd.watch']).toEqual({ value: 'true', source: 'default' });
    expect(await auditActions()).toEqual(
      expect.arrayContaining(['label-override-set:web-1', 'label-override-cleared:web-1']),
    );
  });

  it('keeps a container override by identity: a re-created container (new id, same name) has it', async () => {
    await ok(`/containers/${id(2)}/label-overrides`, jsonInit('PUT', { labels: { 'dd.display.name': 'Overridden' } }));
    await client().hub.parts.containers.remove(id(2));
    await client().hub.parts.containers.put(
      containerRecord({ id: id(12), name: 'web-2', labels: { 'dd.display.name': 'Second' } }),
    );
    expect(await ok(`/containers/${id(12)}/label-overrides`)).toMatchObject({
      labels: { 'dd.display.name': 'Overridden' },
    });
    // PUT replaces the whole map: an empty one clears it.
    const back = await ok<Container>(`/containers/${id(12)}/label-overrides`, jsonInit('PUT', { labels: {} }));
    expect(back.displayName).toBe('Second');
  });

  it('applies global overrides by selector, below a container override and above the label', async () => {
    const created = await ok<GlobalLabelOverride>(
      '/label-overrides',
      jsonInit('POST', { selector: { name: 'web-*' }, labels: { 'dd.group': 'ops', 'dd.display.icon': 'mdi:web' } }),
      201,
    );
    expect(created.id).toMatch(/^[a-z0-9]{12}$/);
    const web1 = await container(1);
    expect(web1).toMatchObject({ group: 'ops', displayIcon: 'mdi:web' });
    expect(web1.effectiveLabels?.['dd.group']).toEqual({ value: 'ops', source: 'global-override' });
    expect((await container(3)).group).toBeUndefined(); // db does not match
    expect(await ok(`/containers/${id(1)}/label-overrides`)).toMatchObject({ globalOverrides: [created.id] });

    const own = await ok<Container>(
      `/containers/${id(1)}/label-overrides`,
      jsonInit('PUT', { labels: { 'dd.group': 'mine' } }),
    );
    expect(own.effectiveLabels?.['dd.group']).toEqual({ value: 'mine', source: 'override' });
    expect(own.effectiveLabels?.['dd.display.icon']).toEqual({ value: 'mdi:web', source: 'global-override' });
    await ok(`/containers/${id(1)}/label-overrides`, { method: 'DELETE' });

    // The selector moves to db: web-1 falls back to its label, db gets the override.
    const moved = await ok<GlobalLabelOverride>(
      `/label-overrides/${created.id}`,
      jsonInit('PUT', {
        selector: { name: 'd?', watcher: 'local', agent: '__local__' },
        labels: { 'dd.group': 'data' },
      }),
    );
    expect(moved).toMatchObject({ id: created.id, createdAt: created.createdAt, labels: { 'dd.group': 'data' } });
    expect((await container(1)).group).toBe('shop');
    expect((await container(3)).group).toBe('data');
    expect(await ok(`/label-overrides/${created.id}`)).toEqual(moved);
    expect(await ok('/label-overrides')).toEqual({ data: [moved], total: 1 });

    await ok(`/label-overrides/${created.id}`, { method: 'DELETE' });
    expect((await container(3)).group).toBeUndefined();
    await expectJsonError(await request(`/label-overrides/${created.id}`), 404);
    await expectJsonError(await request(`/label-overrides/${created.id}`, { method: 'DELETE' }), 404);
    expect(await auditActions()).toEqual(expect.arrayContaining(['label-override-set:', 'label-override-cleared:']));
  });

  it("lists overrides by identity, a gone container's too, and clears them by identity", async () => {
    await ok(`/containers/${id(3)}/label-overrides`, jsonInit('PUT', { labels: { 'dd.display.name': 'Data' } }));
    const identity = '__local__::local::db';
    expect((await ok<{ data: unknown[] }>('/label-overrides/containers')).data).toContainEqual({
      identity,
      labels: { 'dd.display.name': 'Data' },
      containerIds: [id(3)],
    });
    await client().hub.parts.containers.remove(id(3));
    expect((await ok<{ data: unknown[] }>('/label-overrides/containers')).data).toContainEqual({
      identity,
      labels: { 'dd.display.name': 'Data' },
      containerIds: [],
    });
    const path = `/label-overrides/containers/${encodeURIComponent(identity)}`;
    expect(await ok(path, { method: 'DELETE' })).toEqual({
      identity,
      labels: { 'dd.display.name': 'Data' },
      containerIds: [],
    });
    await expectJsonError(await request(path, { method: 'DELETE' }), 404);
    expect(
      (await ok<{ data: { identity: string }[] }>('/label-overrides/containers')).data.map((entry) => entry.identity),
    ).not.toContain(identity);
    expect(await auditActions()).toContain('label-override-cleared:db');
    await client().hub.parts.containers.put(RECORDS[2] as Container);
  });

  it('refuses a global override without labels, with an unknown selector field or a bad value', async () => {
    await expectJsonError(await request('/label-overrides', jsonInit('POST', { selector: {}, labels: {} })), 400);
    await expectJsonError(
      await request('/label-overrides', jsonInit('POST', { selector: { host: 'x' }, labels: { 'dd.watch': 'true' } })),
      400,
    );
    const bad = await expectJsonError(
      await request(
        '/label-overrides',
        jsonInit('POST', { selector: {}, labels: { 'dd.registry.lookup.image': '::' } }),
      ),
      400,
    );
    expect(bad.details).toMatchObject({ label: 'dd.registry.lookup.image' });
    expect(await ok('/label-overrides')).toEqual({ data: [], total: 0 });
  });

  it('PATCH sets and clears single keys and keeps the others, audited; refuses an empty or contradictory change', async () => {
    await client().hub.parts.containers.put(
      containerRecord({ id: id(7), name: 'web-7', labels: { 'dd.display.name': 'Second' } }),
    );
    const patch = (body: unknown) => request(`/containers/${id(7)}/label-overrides`, jsonInit('PATCH', body));
    await ok(`/containers/${id(7)}/label-overrides`, jsonInit('PUT', { labels: { 'dd.group': 'blue' } }));
    const set = await ok<Container>(
      `/containers/${id(7)}/label-overrides`,
      jsonInit('PATCH', { set: { 'dd.display.name': 'Patched' } }),
    );
    expect(set.displayName).toBe('Patched');
    expect(await ok(`/containers/${id(7)}/label-overrides`)).toMatchObject({
      labels: { 'dd.group': 'blue', 'dd.display.name': 'Patched' },
    });
    const cleared = await ok<Container>(
      `/containers/${id(7)}/label-overrides`,
      jsonInit('PATCH', { unset: ['dd.display.name'] }),
    );
    // The container's own label applies again; the other override stays.
    expect(cleared.displayName).toBe('Second');
    expect(cleared.effectiveLabels?.['dd.display.name']).toEqual({ value: 'Second', source: 'label' });
    expect(cleared.effectiveLabels?.['dd.group']).toEqual({ value: 'blue', source: 'override' });
    expect(await auditActions()).toEqual(
      expect.arrayContaining(['label-override-set:web-7', 'label-override-cleared:web-7']),
    );
    await expectJsonError(await patch({}), 400);
    await expectJsonError(await patch({ set: { 'dd.watch': 'true' }, unset: ['dd.watch'] }), 400);
    await expectJsonError(await patch({ unset: ['dd.hook.pre'] }), 400);
    const bad = await expectJsonError(await patch({ set: { 'dd.watch': 'maybe' } }), 400);
    expect(bad.details).toMatchObject({ label: 'dd.watch' });
    // Nothing changed by the refusals.
    expect(await ok(`/containers/${id(7)}/label-overrides`)).toMatchObject({ labels: { 'dd.group': 'blue' } });
    await ok(`/containers/${id(7)}/label-overrides`, { method: 'DELETE' });
  });
});
