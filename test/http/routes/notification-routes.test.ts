import { expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError, jsonInit } from '../../support/hub-harness';

const SPEC_DEFAULTS = {
  'update-available': [true, true],
  'update-applied': [true, true],
  'update-failed': [true, true],
  'security-alert': [true, true],
  'agent-disconnect': [false, true],
  'agent-reconnect': [false, false],
  'container-unhealthy': [false, false],
  'maturity-cleared': [true, true],
} as const;

describeRuntimeMatrix('notification rules', (client) => {
  it('has exactly the eight defaults of http-interface §2.8', async () => {
    const body = await (await client().request('/api/v1/notifications')).json();
    expect(body.total).toBe(8);
    expect(body.data.map((rule: { id: string }) => rule.id)).toEqual(Object.keys(SPEC_DEFAULTS));
    for (const rule of body.data) {
      const [enabled, bellEnabled] = SPEC_DEFAULTS[rule.id as keyof typeof SPEC_DEFAULTS];
      expect(rule).toMatchObject({ enabled, bellEnabled, bellThreshold: 'all', triggers: [], templates: {} });
      expect(rule.name).toEqual(expect.any(String));
      expect(rule.description).toEqual(expect.any(String));
    }
  });

  it('PATCH changes only the given fields', async () => {
    const response = await client().request(
      '/api/v1/notifications/agent-reconnect',
      jsonInit('PATCH', { enabled: true, bellThreshold: 'major' }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: 'agent-reconnect',
      enabled: true,
      bellEnabled: false,
      bellThreshold: 'major',
      triggers: [],
    });
    const second = await client().request(
      '/api/v1/notifications/agent-reconnect',
      jsonInit('PATCH', { bellEnabled: true }),
    );
    expect(await second.json()).toMatchObject({ enabled: true, bellEnabled: true, bellThreshold: 'major' });
    const listed = await (await client().request('/api/v1/notifications')).json();
    expect(listed.data.find((rule: { id: string }) => rule.id === 'agent-reconnect')).toMatchObject({
      enabled: true,
      bellEnabled: true,
    });
  });

  it('answers 404 for an unknown rule and 400 for bad bodies or unknown triggers', async () => {
    await expectJsonError(
      await client().request('/api/v1/notifications/no-such-rule', jsonInit('PATCH', { enabled: true })),
      404,
    );
    for (const bad of [
      { enabled: 'yes' },
      { bellThreshold: 'huge' },
      { triggers: 'slack.main' },
      { templates: { x: {} } },
      { colour: 'red' },
    ]) {
      await expectJsonError(
        await client().request('/api/v1/notifications/update-available', jsonInit('PATCH', bad)),
        400,
      );
    }
    const unknown = await expectJsonError(
      await client().request('/api/v1/notifications/update-available', jsonInit('PATCH', { triggers: ['slack.main'] })),
      400,
    );
    expect(unknown.details?.unknownTriggers).toEqual(['slack.main']);
    const templates = await expectJsonError(
      await client().request(
        '/api/v1/notifications/update-available',
        jsonInit('PATCH', { templates: { 'smtp.ops': { simpleTitle: 'x' } } }),
      ),
      400,
    );
    expect(templates.details?.unknownTriggers).toEqual(['smtp.ops']);
    const rule = (await (await client().request('/api/v1/notifications')).json()).data[0];
    expect(rule).toMatchObject({ id: 'update-available', enabled: true, triggers: [] });
  });
});
