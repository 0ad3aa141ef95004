// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
// The notification rule routes with HTTP triggers configured: triggers and templates in a PATCH,
// the preview, and the bell (notification-bell-routes.ts). The rules on a hub without triggers:
// ./notification-routes.test.ts; the trigger routes, on the same setup: ./trigger-routes.test.ts.
import { expect, it } from 'vitest';
import { expectJsonError, jsonInit } from '../../support/hub-harness';
import { cycle, record } from '../../support/notification-hub';
import { describeTriggerBed } from '../../support/trigger-hub';

describeTriggerBed('notification rule routes (http-interface §4.9)', (bed, mode) => {
  it('PATCH accepts configured notification triggers only, and templates that compile', async () => {
    const ok = await bed.json(
      '/api/v1/notifications/update-failed',
      jsonInit('PATCH', {
        triggers: ['http.ops'],
        templates: { 'http.ops': { simpleTitle: 'Failed: ${container.name}' } },
      }),
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      triggers: ['http.ops'],
      templates: { 'http.ops': { simpleTitle: 'Failed: ${container.name}' } },
    });
    const action = await expectJsonError(
      await bed
        .hub()
        .request(
          '/api/v1/notifications/update-failed',
          jsonInit('PATCH', { templates: { 'docker.local': { simpleTitle: 'x' } } }),
        ),
      400,
    );
    expect(action.details?.['unknownTriggers']).toEqual(['docker.local']);
    await expectJsonError(
      await bed.hub().request('/api/v1/notifications/update-failed', jsonInit('PATCH', { triggers: ['docker.local'] })),
      400,
    );
    const broken = await expectJsonError(
      await bed
        .hub()
        .request(
          '/api/v1/notifications/update-failed',
          jsonInit('PATCH', { templates: { 'http.ops': { simpleBody: 'x ${container.}' } } }),
        ),
      400,
    );
    expect(broken.details?.['templateErrors']).toEqual([
      expect.stringMatching(/^http\.ops\.simpleBody: expected a property name at \d+$/),
    ]);
    expect(
      (await bed.json('/api/v1/notifications')).body.data.find((rule: { id: string }) => rule.id === 'update-failed'),
    ).toMatchObject({
      templates: { 'http.ops': { simpleTitle: 'Failed: ${container.name}' } },
    });
    await bed.hub().request('/api/v1/notifications/update-failed', jsonInit('PATCH', { triggers: [], templates: {} }));
  });

  it('preview falls back from the given field to the saved override to the trigger default', async () => {
    await bed
      .hub()
      .request(
        '/api/v1/notifications/update-available',
        jsonInit('PATCH', { templates: { 'http.ops': { simpleTitle: 'Saved title for ${container.name}' } } }),
      );
    const preview = await bed.json(
      '/api/v1/notifications/update-available/preview',
      jsonInit('POST', {
        triggerId: 'http.ops',
        templates: { batchTitle: 'Given: ${containers.length} for ${trigger.id}' },
      }),
    );
    expect(preview).toEqual({
      status: 200,
      body: {
        simpleTitle: 'Saved title for example',
        simpleBody: 'Trigger default body for example',
        batchTitle: 'Given: 2 for http.ops',
      },
    });
    const given = await bed.json(
      '/api/v1/notifications/update-available/preview',
      jsonInit('POST', { triggerId: 'http.ops', templates: { simpleTitle: '${container.updateKind.semverDiff}' } }),
    );
    expect(given.body.simpleTitle).toBe('minor');
    // Another rule: the core's default for that event (SIMPLEBODY of the trigger is update-available's).
    const agent = await bed.json(
      '/api/v1/notifications/agent-disconnect/preview',
      jsonInit('POST', { triggerId: 'http.first' }),
    );
    expect(agent.body).toEqual({
      simpleTitle: 'Agent edge-1 disconnected',
      simpleBody: 'The agent edge-1 lost its connection to the hub: heartbeat timeout',
      batchTitle: 'Agents disconnected',
    });
    await expectJsonError(
      await bed.hub().request('/api/v1/notifications/nope/preview', jsonInit('POST', { triggerId: 'http.ops' })),
      404,
    );
    await expectJsonError(
      await bed
        .hub()
        .request('/api/v1/notifications/update-available/preview', jsonInit('POST', { triggerId: 'docker.local' })),
      400,
    );
    await expectJsonError(
      await bed
        .hub()
        .request(
          '/api/v1/notifications/update-available/preview',
          jsonInit('POST', { triggerId: 'http.ops', templates: { simpleBody: '${(' } }),
        ),
      400,
    );
    await bed.hub().request('/api/v1/notifications/update-available', jsonInit('PATCH', { templates: {} }));
  });

  // A watch cycle is applied through the hub object (`cycle`), which is in this process only in
  // memory; under workerd the containers would come from an edge agent (integration/edge-workers).
  it.skipIf(mode === 'workerd')(
    'the bell lists audit-backed events of bell-enabled rules, filtered by bellThreshold, with read state',
    async () => {
      await cycle(bed.hub(), [
        record('bell-major', { from: '1.0.0', to: '2.0.0', diff: 'major' }),
        record('bell-patch', { from: '1.0.0', to: '1.0.1', diff: 'patch' }),
      ]);
      const bell = await bed.json('/api/v1/notifications/bell');
      expect(bell.status).toBe(200);
      const names = (body: { data: { containerName?: string }[] }) => body.data.map((entry) => entry.containerName);
      expect(names(bell.body)).toEqual(expect.arrayContaining(['bell-major', 'bell-patch']));
      expect(bell.body.unread).toBe(bell.body.total);

      await bed.hub().request('/api/v1/notifications/update-available', jsonInit('PATCH', { bellThreshold: 'major' }));
      const majorOnly = await bed.json('/api/v1/notifications/bell');
      expect(names(majorOnly.body)).toContain('bell-major');
      expect(names(majorOnly.body)).not.toContain('bell-patch');

      const first = majorOnly.body.data[0] as { id: string; read: boolean };
      const marked = await bed.json('/api/v1/notifications/bell/read', jsonInit('POST', { ids: [first.id] }));
      expect(marked).toEqual({ status: 200, body: { unread: majorOnly.body.unread - 1 } });
      const unread = await bed.json('/api/v1/notifications/bell?unread=true');
      expect(unread.body.data.map((entry: { id: string }) => entry.id)).not.toContain(first.id);
      expect((await bed.json('/api/v1/notifications/bell/read', { method: 'POST' })).body).toEqual({ unread: 0 });
      expect(
        (await bed.json('/api/v1/notifications/bell')).body.data.every((entry: { read: boolean }) => entry.read),
      ).toBe(true);

      await bed
        .hub()
        .request(
          '/api/v1/notifications/update-available',
          jsonInit('PATCH', { bellEnabled: false, bellThreshold: 'all' }),
        );
      expect(names((await bed.json('/api/v1/notifications/bell')).body)).not.toContain('bell-major');
      await bed.hub().request('/api/v1/notifications/update-available', jsonInit('PATCH', { bellEnabled: true }));
      await expectJsonError(await bed.hub().request('/api/v1/notifications/bell?limit=0'), 400);
      await expectJsonError(
        await bed.hub().request('/api/v1/notifications/bell/read', jsonInit('POST', { ids: 'x' })),
        400,
      );
    },
  );
});
