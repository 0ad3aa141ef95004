// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
import { describe, expect, it } from 'vitest';
import { configErrorOf } from '../../../test/support/config-error-of';
import { groupProviderVariables } from '../config/provider-variables';
import { routeContainer } from './container-routing';
import { describeTrigger, loadNotificationTriggers, NOTIFICATION_RESERVED } from './notification-triggers';
import { BUILT_IN_NOTIFICATION_PROVIDERS } from './providers/index';
import { redactDeliveryError } from './redact-delivery-error';
import { bellThresholdAllows, thresholdAllows, type UpdateLevel, updateLevel } from './update-threshold';

const load = (env: Record<string, string>) =>
  loadNotificationTriggers(
    groupProviderVariables(Object.entries(env), 'DD_NOTIFICATION_', NOTIFICATION_RESERVED),
    BUILT_IN_NOTIFICATION_PROVIDERS,
  );

const configError = (env: Record<string, string>) => configErrorOf(() => load(env));

describe('DD_NOTIFICATION_* configuration', () => {
  it('reads the common keys with their defaults, and the provider keys', () => {
    const [trigger] = load({ DD_NOTIFICATION_HTTP_MY_OPS_URL: 'https://hooks.example.com/x' });
    expect(trigger).toMatchObject({
      id: 'http.my-ops',
      settings: { threshold: 'all', mode: 'simple', once: true, order: 0, templates: {}, cron: '0 8 * * *' },
    });
    const [custom] = load({
      DD_NOTIFICATION_HTTP_OPS_URL: 'https://hooks.example.com/x',
      DD_NOTIFICATION_HTTP_OPS_THRESHOLD: 'Minor-Only',
      DD_NOTIFICATION_HTTP_OPS_MODE: 'digest',
      DD_NOTIFICATION_HTTP_OPS_CRON: '*/5 * * * *',
      DD_NOTIFICATION_HTTP_OPS_ONCE: 'false',
      DD_NOTIFICATION_HTTP_OPS_ORDER: '-3',
      DD_NOTIFICATION_HTTP_OPS_BATCHTITLE: '${containers.length} updates',
    });
    expect(custom?.settings).toEqual({
      threshold: 'minor-only',
      mode: 'digest',
      once: false,
      order: -3,
      templates: { batchTitle: '${containers.length} updates' },
      cron: '*/5 * * * *',
    });
  });

  it('refuses with a ConfigError naming the variable', () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [
        { DD_NOTIFICATION_NOPE_X_URL: 'https://a' },
        'DD_NOTIFICATION_NOPE_X_URL',
        /unknown notification type "nope"; known: .*http/,
      ],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_THRESHOLD: 'huge' },
        'DD_NOTIFICATION_HTTP_X_THRESHOLD',
        /must be one of all, major/,
      ],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_MODE: 'loud' },
        'DD_NOTIFICATION_HTTP_X_MODE',
        /simple, batch, digest/,
      ],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_ONCE: 'maybe' },
        'DD_NOTIFICATION_HTTP_X_ONCE',
        /true or false/,
      ],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_CRON: 'every day' },
        'DD_NOTIFICATION_HTTP_X_CRON',
        /cron/,
      ],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_SIMPLETITLE: '${a.}' },
        'DD_NOTIFICATION_HTTP_X_SIMPLETITLE',
        /template error/,
      ],
      [{ DD_NOTIFICATION_HTTP_X_METHOD: 'post' }, 'DD_NOTIFICATION_HTTP_X_URL', /./],
      [{ DD_NOTIFICATION_HTTP_X_URL: 'ftp://a' }, 'DD_NOTIFICATION_HTTP_X_URL', /http/],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_URLL: 'typo' },
        'DD_NOTIFICATION_HTTP_X_URLL',
        /unknown key/,
      ],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_USER: 'u' },
        'DD_NOTIFICATION_HTTP_X_PASSWORD',
        /together/,
      ],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_HEADERS: '{"Content-Type":"text/plain"}' },
        'DD_NOTIFICATION_HTTP_X_HEADERS',
        /set by the trigger/,
      ],
      [
        { DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_HEADERS: '[1]' },
        'DD_NOTIFICATION_HTTP_X_HEADERS',
        /JSON object/,
      ],
      [{ DD_NOTIFICATION_HTTPX: 'x' }, 'DD_NOTIFICATION_HTTPX', /<TYPE>_<NAME>_<KEY>/],
    ];
    for (const [env, variable, message] of cases) {
      const error = configError(env);
      expect(error.variable, JSON.stringify(env)).toBe(variable);
      expect(error.message, JSON.stringify(env)).toMatch(message);
    }
  });

  it('never echoes a secret in a configuration error', () => {
    const error = configError({
      DD_NOTIFICATION_HTTP_X_URL: 'https://a',
      DD_NOTIFICATION_HTTP_X_HEADERS: '{"X-Key": "sekrit-value\\n"}',
    });
    expect(error.message).not.toContain('sekrit-value');
    expect(
      configError({ DD_NOTIFICATION_HTTP_X_URL: 'https://a', DD_NOTIFICATION_HTTP_X_BEARER: '' }).message,
    ).not.toContain('got');
  });

  it('masks secrets in the described configuration; an http URL shows its scheme and host only (issue 33 item 2)', () => {
    const [trigger] = load({
      DD_NOTIFICATION_HTTP_X_URL:
        'https://user:pw-in-url@hooks.example.com/api/webhook/hook-id-77?sig=sig-value-1234&code=code-5678',
      DD_NOTIFICATION_HTTP_X_BEARER: 'bearer-secret-123',
      DD_NOTIFICATION_HTTP_X_HEADERS: '{"X-Api-Key":"hdr-secret-456"}',
    });
    const described = describeTrigger(trigger as NonNullable<typeof trigger>);
    const shown = JSON.stringify(described);
    for (const secret of [
      'pw-in-url',
      'hook-id-77',
      'sig-value-1234',
      'code-5678',
      'bearer-secret-123',
      'hdr-secret-456',
    ])
      expect(shown).not.toContain(secret);
    expect(described.configuration['url']).toBe('https://***@hooks.example.com/***');
    // A delivery error quoting the URL, its path or a query value is redacted.
    expect(trigger?.secrets).toEqual(
      expect.arrayContaining(['bearer-secret-123', 'hdr-secret-456', 'pw-in-url', 'hook-id-77', 'code-5678']),
    );
  });
});

describe('THRESHOLD and bellThreshold', () => {
  const levels: (UpdateLevel | undefined)[] = ['major', 'minor', 'patch', 'digest', 'tag', undefined];
  const allowed = (threshold: Parameters<typeof thresholdAllows>[0]) =>
    levels.filter((level) => thresholdAllows(threshold, level));

  it('keeps "up to this level" for triggers, and -only for exactly one level', () => {
    expect(allowed('all')).toEqual(levels);
    expect(allowed('major')).toEqual(levels);
    expect(allowed('minor')).toEqual(['minor', 'patch', 'digest', undefined]);
    expect(allowed('patch')).toEqual(['patch', 'digest', undefined]);
    expect(allowed('digest')).toEqual(['digest', undefined]);
    expect(allowed('digest-only')).toEqual(['digest', undefined]);
    expect(allowed('major-only')).toEqual(['major', undefined]);
    expect(allowed('minor-only')).toEqual(['minor', undefined]);
    expect(allowed('patch-only')).toEqual(['patch', undefined]);
  });

  it('reads the level from updateKind; a prerelease step counts as patch', () => {
    expect(
      updateLevel({ kind: 'tag', localValue: '1.0.0-rc1', remoteValue: '1.0.0-rc2', semverDiff: 'prerelease' }),
    ).toBe('patch');
    expect(updateLevel({ kind: 'tag', localValue: 'stable', remoteValue: 'edge' })).toBe('tag');
    expect(updateLevel({ kind: 'digest', localValue: 'sha256:a', remoteValue: 'sha256:b' })).toBe('digest');
    expect(updateLevel({ kind: 'unknown' })).toBeUndefined();
  });

  it('treats bellThreshold as a minimum', () => {
    const shown = (threshold: Parameters<typeof bellThresholdAllows>[0]) =>
      levels.filter((level) => bellThresholdAllows(threshold, level));
    expect(shown('major')).toEqual(['major', 'tag', undefined]);
    expect(shown('minor')).toEqual(['major', 'minor', 'tag', undefined]);
    expect(shown('patch')).toEqual(['major', 'minor', 'patch', 'tag', undefined]);
    expect(shown('all')).toEqual(levels);
  });
});

describe('dd.notification.include / exclude', () => {
  const ops = { id: 'http.ops', name: 'ops' };
  it('matches trigger ids or names, exclude winning, with an optional threshold per include entry', () => {
    expect(routeContainer({}, ops)).toEqual({ allowed: true });
    expect(routeContainer({ 'dd.notification.include': 'http.ops' }, ops)).toEqual({ allowed: true });
    expect(routeContainer({ 'dd.notification.include': ' OPS , slack.x' }, ops)).toEqual({ allowed: true });
    expect(routeContainer({ 'dd.notification.include': 'slack.ops' }, ops)).toEqual({ allowed: false });
    expect(routeContainer({ 'dd.notification.include': 'ops:major-only' }, ops)).toEqual({
      allowed: true,
      threshold: 'major-only',
    });
    expect(routeContainer({ 'dd.notification.include': 'ops:bogus' }, ops)).toEqual({ allowed: true });
    expect(routeContainer({ 'dd.notification.include': 'ops', 'dd.notification.exclude': 'http.ops' }, ops)).toEqual({
      allowed: false,
    });
    expect(routeContainer({ 'dd.notification.include': '' }, ops)).toEqual({ allowed: true });
  });
});

describe('lastError redaction', () => {
  it('redacts Authorization values wherever echoed, and the trigger’s secrets', () => {
    const echoed = [
      'answered 500: {"authorization":"Bearer abc.def-123","x":1}',
      'answered 401: Authorization: Basic dXNlcjpwYXNz\r\nHost: x',
      'token rejected: Bearer abcdefgh',
      'hook s3cr3t-webhook-path not found',
    ].join(' | ');
    const out = redactDeliveryError(echoed, ['s3cr3t-webhook-path']);
    for (const secret of ['abc.def-123', 'dXNlcjpwYXNz', 'abcdefgh', 's3cr3t-webhook-path'])
      expect(out).not.toContain(secret);
    expect(out).toContain('"authorization":"***"');
    expect(out).toContain('Authorization: ***');
    expect(out).not.toMatch(/[\r\n]/);
    expect(redactDeliveryError('x'.repeat(5000), [])).toHaveLength(1001);
  });
});
