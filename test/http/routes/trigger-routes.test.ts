// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
import { expect, it } from 'vitest';
import { expectJsonError, jsonInit } from '../../support/hub-harness';
import { cycle, record } from '../../support/notification-hub';
import { describeTriggerBed, TRIGGER_PASSWORD } from '../../support/trigger-hub';

describeTriggerBed('trigger routes (http-interface §4.7, §4.8)', (bed, mode) => {
  it('lists the notification triggers in ORDER, then the action triggers, configuration masked', async () => {
    const { status, body } = await bed.json('/api/v1/triggers');
    expect(status).toBe(200);
    expect(body.total).toBe(3);
    expect(body.data.map((trigger: { id: string }) => trigger.id)).toEqual(['http.first', 'http.ops', 'docker.local']);
    const ops = await bed.json('/api/v1/triggers/http/ops');
    expect(ops.status).toBe(200);
    expect(ops.body).toEqual({
      id: 'http.ops',
      type: 'http',
      name: 'ops',
      configuration: {
        threshold: 'all',
        mode: 'simple',
        once: true,
        order: 5,
        simplebody: 'Trigger default body for ${container.name}',
        // Scheme and host only: the path and query of a webhook URL hold its token (issue 33 item 2).
        url: `http://${new URL(bed.receiver().url).host}/***`,
        user: 'hub',
        password: '***',
      },
    });
    expect(JSON.stringify(body)).not.toContain(TRIGGER_PASSWORD);
    expect(JSON.stringify(body)).not.toContain('query-secret-1a2b3c');
    await expectJsonError(await bed.hub().request('/api/v1/triggers/http/nope'), 404);
    // Action triggers are listed too (http-interface §2.12), but are no notification target (see the PATCH tests).
    expect((await bed.json('/api/v1/triggers/docker/local')).body).toMatchObject({
      id: 'docker.local',
      type: 'docker',
      name: 'local',
    });
  });

  // Issue 33 item 2: `GET /triggers` with a read key returned an http trigger's URL whole, `?sig=…&code=…` and all.
  it('shows a read key the scheme and host of each http trigger URL, nothing of its path or query', async () => {
    const created = await bed.json('/api/v1/api-keys', jsonInit('POST', { name: 'reader', scopes: ['read'] }));
    expect(created.status).toBe(201);
    const asReader = { headers: { authorization: `Bearer ${created.body.apiKey}` } };
    const listed = await bed.json('/api/v1/triggers', asReader);
    expect(listed.status).toBe(200);
    const urls = listed.body.data
      .filter((trigger: { type: string }) => trigger.type === 'http')
      .map((trigger: { configuration: { url: string } }) => trigger.configuration.url);
    const origin = `http://${new URL(bed.receiver().url).host}`;
    expect(urls).toEqual([`${origin}/***`, `${origin}/***`]);
    const one = await bed.json('/api/v1/triggers/http/first', asReader);
    expect(one.body.configuration.url).toBe(`${origin}/***`);
    for (const hidden of ['/hook', 'query-secret-1a2b3c', 'room=ops', '/first'])
      expect(JSON.stringify([listed.body, one.body])).not.toContain(hidden);
  });

  it('runs a trigger with simulated data and reports the delivery', async () => {
    const ran = await bed.json(
      '/api/v1/triggers/http/ops',
      jsonInit('POST', {
        name: 'manual',
        updateKind: { kind: 'tag', localValue: '1.0', remoteValue: '1.1', semverDiff: 'minor' },
      }),
    );
    expect(ran).toEqual({
      status: 200,
      body: { triggerId: 'http.ops', containerId: 'simulated-container', delivered: true },
    });
    expect(bed.receiver().received).toHaveLength(1);
    expect(bed.receiver().received[0]?.headers['authorization']).toBe(
      `Basic ${Buffer.from(`hub:${TRIGGER_PASSWORD}`).toString('base64')}`,
    );
    expect(bed.receiver().received[0]?.json).toMatchObject({
      event: 'update-available',
      title: 'New tag found for container manual',
      body: 'Trigger default body for manual',
      containers: [{ name: 'manual', updateKind: { remoteValue: '1.1' } }],
    });
    // No body at all: the simulated container as it is.
    expect((await bed.hub().request('/api/v1/triggers/http/ops', { method: 'POST' })).status).toBe(200);
    await expectJsonError(
      await bed.hub().request('/api/v1/triggers/http/ops', jsonInit('POST', { updateKind: { kind: 'bogus' } })),
      400,
    );
    await expectJsonError(await bed.hub().request('/api/v1/triggers/http/ops', jsonInit('POST', [])), 400);
    await expectJsonError(await bed.hub().request('/api/v1/triggers/http/nope', jsonInit('POST', {})), 404);

    bed.receiver().behave({ status: 503, body: 'maintenance' });
    const failed = await expectJsonError(
      await bed.hub().request('/api/v1/triggers/http/ops', jsonInit('POST', {})),
      502,
    );
    expect(failed.error).toContain('http.ops: answered 503: maintenance');
    const outbox = await bed.json('/api/v1/notifications/outbox');
    expect(outbox.body.data.map((entry: { id: string; manual?: boolean }) => [entry.id, entry.manual])).toEqual([
      [failed.details?.['outboxId'], true],
    ]);
    await bed.hub().request(`/api/v1/notifications/outbox/${failed.details?.['outboxId']}`, { method: 'DELETE' });
  });

  // A watch cycle is applied through the hub object (`cycle`), which is in this process only in
  // memory; under workerd the containers would come from an edge agent (integration/edge-workers).
  it.skipIf(mode === 'workerd')(
    'runs a trigger for a stored container, and lists the triggers that apply to it',
    async () => {
      await bed.hub().request('/api/v1/notifications/update-available', jsonInit('PATCH', { enabled: false }));
      await cycle(bed.hub(), [
        record('web', { from: '1.0.0', to: '2.0.0', diff: 'major' }),
        record('quiet', undefined, { labels: { 'dd.notification.exclude': 'ops' } }),
      ]);
      await bed.hub().request('/api/v1/notifications/update-available', jsonInit('PATCH', { enabled: true }));
      expect(bed.receiver().received).toHaveLength(0);

      const triggers = await bed.json('/api/v1/containers/web-id/triggers');
      // The Docker action trigger that can update it first: What's Up Docker clients offer the first as "Update".
      expect(triggers.body.data.map((trigger: { id: string }) => trigger.id)).toEqual([
        'docker.local',
        'http.first',
        'http.ops',
      ]);
      expect((await bed.json('/api/v1/containers/quiet-id/triggers')).body).toMatchObject({
        total: 2,
        data: [{ id: 'docker.local' }, { id: 'http.first' }],
      });

      expect((await bed.json('/api/v1/containers/web-id/triggers/http/ops', { method: 'POST' })).body).toEqual({
        triggerId: 'http.ops',
        containerId: 'web-id',
        delivered: true,
      });
      expect(
        (await bed.hub().request('/api/v1/containers/web-id/triggers/http/ops/__local__', { method: 'POST' })).status,
      ).toBe(200);
      expect(bed.receiver().received.map((request) => (request.json as { title: string }).title)).toEqual([
        'New tag found for container web',
        'New tag found for container web',
      ]);
      await expectJsonError(
        await bed.hub().request('/api/v1/containers/web-id/triggers/http/ops/other-agent', { method: 'POST' }),
        404,
      );
      await expectJsonError(
        await bed.hub().request('/api/v1/containers/nope/triggers/http/ops', { method: 'POST' }),
        404,
      );
      await expectJsonError(
        await bed.hub().request('/api/v1/containers/web-id/triggers/http/nope', { method: 'POST' }),
        404,
      );
      // A Docker action trigger run for a container is its update (test/integration/wud-card.test.ts updates one).
      const noAction = await expectJsonError(
        await bed.hub().request('/api/v1/containers/web-id/triggers/docker/nope', { method: 'POST' }),
        404,
      );
      expect(noAction.details?.['reason']).toBe('no-action-trigger');
    },
  );
});
